import type { Message } from '../common/messages.ts';

/** One message in the GenAI conventions' shape (`gen_ai.input.messages` / `gen_ai.output.messages`). */
export interface GenAiMessage {
  role: string;
  parts: Array<Record<string, unknown>>;
}

/** Our stored messages in the GenAI conventions' shape: text, tool_call and tool_call_response parts. */
export function toGenAiMessages(messages: readonly Message[]): GenAiMessage[] {
  return messages.map((message) => {
    if (message.role === 'tool') {
      return {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: message.toolCallId, response: message.content }],
      };
    }
    const parts: GenAiMessage['parts'] = message.content ? [{ type: 'text', content: message.content }] : [];
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        parts.push({ type: 'tool_call', id: call.id, name: call.name, arguments: call.args });
      }
    }
    return { role: message.role, parts };
  });
}
