import { randomBytes } from 'node:crypto';
import {
  sse,
  startProviderServer,
  type ContextLimit,
  type ProviderScript,
  type ProviderServer,
} from './scripted-provider.ts';
import type { AnthropicPromptCache } from './anthropic-cache.ts';

interface Block {
  type: string;
  id?: string;
  tool_use_id?: string;
  signature?: string;
}
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | Block[];
}

/**
 * Anthropic Messages (`POST /v1/messages`). Refuses, with Anthropic's own 400 bodies, `tool_use`
 * blocks without `tool_result` blocks in the next message, `tool_result` blocks that answer no
 * `tool_use` of the previous message, and, when thinking is enabled, an assistant turn with tool use
 * that does not start with a thinking block this server signed. With a `limit`, refuses a request
 * over it with Anthropic's own "prompt is too long" body. With a `cache`, bills each request as the
 * service's prompt cache does (the usage fields `cache_read_input_tokens`, `cache_creation_input_tokens`
 * and `cache_creation`) and refuses markers that break its rules; the scripted usage then gives only
 * the output tokens.
 */
export function startAnthropicServer(
  turns: ProviderScript,
  limit?: ContextLimit,
  cache?: AnthropicPromptCache,
): Promise<ProviderServer> {
  const signatures = new Set<string>();
  return startProviderServer({
    path: '/v1/messages',
    turns,
    ...(limit
      ? {
          limit: {
            ...limit,
            refuse: (tokens: number, max: number) =>
              invalid(`prompt is too long: ${tokens} tokens > ${max} maximum`),
          },
        }
      : {}),
    validate(body) {
      const refusal = cache?.refusal(body);
      if (refusal) return invalid(refusal);
      const messages = body.messages as AnthropicMessage[];
      const thinking = (body.thinking as { type?: string } | undefined)?.type === 'enabled';
      for (let i = 0; i < messages.length; i++) {
        const blocks = typeof messages[i]!.content === 'string' ? [] : (messages[i]!.content as Block[]);
        const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id!);
        if (messages[i]!.role === 'assistant' && uses.length) {
          const next = messages[i + 1];
          const results = new Set(
            typeof next?.content === 'string'
              ? []
              : (next?.content ?? []).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id),
          );
          const missing = uses.filter((id) => !results.has(id));
          if (missing.length) {
            return invalid(
              `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
                'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
            );
          }
          if (thinking && (blocks[0]?.type !== 'thinking' || !signatures.has(blocks[0].signature ?? ''))) {
            return invalid(
              `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${blocks[0]?.type}\`. ` +
                'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the ' +
                'lastmost set of `tool_use` and `tool_result` blocks).',
            );
          }
        }
        if (messages[i]!.role === 'user') {
          const previous = messages[i - 1];
          const previousUses = new Set(
            previous?.role === 'assistant' && typeof previous.content !== 'string'
              ? previous.content.filter((b) => b.type === 'tool_use').map((b) => b.id)
              : [],
          );
          const index = blocks.findIndex((b) => b.type === 'tool_result' && !previousUses.has(b.tool_use_id));
          if (index >= 0) {
            return invalid(
              `messages.${i}.content.${index}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${blocks[index]!.tool_use_id}. ` +
                'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
            );
          }
        }
      }
      return undefined;
    },
    answer(turn, body, response) {
      const signature = randomBytes(12).toString('base64');
      if (turn.thinking) signatures.add(signature);
      const content: Array<Record<string, unknown>> = [];
      if (turn.thinking) content.push({ type: 'thinking', thinking: turn.thinking, signature });
      if (turn.text) content.push({ type: 'text', text: turn.text });
      for (const call of turn.toolCalls ?? [])
        content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.args });
      const stopReason = turn.toolCalls?.length ? 'tool_use' : 'end_turn';
      const usage = cache
        ? cache.charge(body, turn.usage?.output ?? 5)
        : { input_tokens: turn.usage?.input ?? 10, output_tokens: turn.usage?.output ?? 5 };
      const message = {
        id: `msg_${randomBytes(6).toString('hex')}`,
        type: 'message',
        role: 'assistant',
        model: body.model,
      };
      if (!body.stream) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ ...message, content, stop_reason: stopReason, stop_sequence: null, usage }),
        );
        return;
      }
      const events: Array<{ event: string; data: unknown }> = [
        {
          event: 'message_start',
          data: {
            type: 'message_start',
            message: {
              ...message,
              content: [],
              stop_reason: null,
              stop_sequence: null,
              usage: { ...usage, output_tokens: 1 },
            },
          },
        },
      ];
      content.forEach((block, index) => {
        const start =
          block.type === 'thinking'
            ? { type: 'thinking', thinking: '', signature: '' }
            : block.type === 'text'
              ? { type: 'text', text: '' }
              : { type: 'tool_use', id: block.id, name: block.name, input: {} };
        events.push({
          event: 'content_block_start',
          data: { type: 'content_block_start', index, content_block: start },
        });
        const delta = (value: Record<string, unknown>) =>
          events.push({
            event: 'content_block_delta',
            data: { type: 'content_block_delta', index, delta: value },
          });
        if (block.type === 'thinking') {
          for (const piece of String(block.thinking).match(/.{1,10}/gs) ?? [])
            delta({ type: 'thinking_delta', thinking: piece });
          delta({ type: 'signature_delta', signature: block.signature });
        } else if (block.type === 'text') {
          for (const piece of turn.chunks ?? String(block.text).match(/.{1,10}/gs) ?? [])
            delta({ type: 'text_delta', text: piece });
        } else {
          for (const piece of JSON.stringify(block.input).match(/.{1,6}/gs) ?? [])
            delta({ type: 'input_json_delta', partial_json: piece });
        }
        events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
      });
      events.push({
        event: 'message_delta',
        data: {
          type: 'message_delta',
          delta: { stop_reason: stopReason, stop_sequence: null },
          usage: { output_tokens: usage.output_tokens },
        },
      });
      events.push({ event: 'message_stop', data: { type: 'message_stop' } });
      sse(response, events, undefined, turn.chunkDelayMs);
    },
  });
}

function invalid(message: string) {
  return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } };
}
