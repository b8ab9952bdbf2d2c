import type { LanguageModelV4Message, LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { Message } from '../common/messages.ts';

type AssistantContent = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'];

/**
 * Our stored conversation in the AI SDK's provider prompt format (the same shape in v2, v3 and v4).
 * Consecutive tool results become one `tool` message, in the order of the calls they answer, so
 * providers that require every call to be followed by its result (OpenAI, Anthropic) get exactly that;
 * reasoning and per-call provider data go back as the provider left them.
 */
export function toProviderPrompt(messages: readonly Message[]): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: message.content });
        break;
      case 'user':
        prompt.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
        break;
      case 'assistant': {
        const content: AssistantContent = [];
        const reasoning =
          message.providerData?.reasoning ?? (message.reasoning ? [{ text: message.reasoning }] : []);
        for (const part of reasoning)
          content.push({
            type: 'reasoning',
            text: part.text,
            providerOptions: part.providerOptions as never,
          });
        if (message.content) content.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) {
          content.push({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.name,
            input: call.args,
            providerOptions: message.providerData?.toolCalls?.[call.id] as never,
          });
        }
        prompt.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const part = {
          type: 'tool-result' as const,
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          output: message.isError
            ? { type: 'error-text' as const, value: message.content }
            : { type: 'text' as const, value: message.content },
        };
        const previous = prompt.at(-1);
        if (previous?.role === 'tool') previous.content.push(part);
        else prompt.push({ role: 'tool', content: [part] });
        break;
      }
    }
  }
  return prompt;
}
