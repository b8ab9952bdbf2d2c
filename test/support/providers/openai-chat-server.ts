import {
  sse,
  startProviderServer,
  type ContextLimit,
  type ProviderScript,
  type ProviderServer,
} from './scripted-provider.ts';
import type { OpenAIPromptCache } from './openai-cache.ts';

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string }>;
  tool_call_id?: string;
}

/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), as vLLM, Ollama and OpenAI speak it.
 * Refuses, with OpenAI's own 400 bodies, an assistant `tool_calls` message not followed by a `tool`
 * message for each id, and a `tool` message that answers no preceding call. With a `limit`, refuses
 * a request over it with OpenAI's own `context_length_exceeded` body. With a `cache`, counts the
 * prompt and its cached part as OpenAI's automatic prompt caching does (`prompt_tokens_details.cached_tokens`);
 * the scripted usage then gives only the completion tokens.
 */
export function startOpenAIChatServer(
  turns: ProviderScript,
  limit?: ContextLimit,
  cache?: OpenAIPromptCache,
): Promise<ProviderServer> {
  return startProviderServer({
    path: '/v1/chat/completions',
    turns,
    ...(limit
      ? {
          limit: {
            ...limit,
            refuse: (tokens: number, max: number) => ({
              status: 400,
              body: {
                error: {
                  message:
                    `This model's maximum context length is ${max} tokens. However, your messages resulted in ` +
                    `${tokens} tokens. Please reduce the length of the messages.`,
                  type: 'invalid_request_error',
                  param: 'messages',
                  code: 'context_length_exceeded',
                },
              },
            }),
          },
        }
      : {}),
    validate(body) {
      const messages = body.messages as ChatMessage[];
      for (let i = 0; i < messages.length; i++) {
        const message = messages[i]!;
        if (message.role === 'tool') {
          const owner = [...messages.slice(0, i)].reverse().find((m) => m.role !== 'tool');
          if (!owner?.tool_calls?.some((call) => call.id === message.tool_call_id)) {
            return invalid(
              "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
              `messages.[${i}].role`,
            );
          }
        }
        if (message.role === 'assistant' && message.tool_calls?.length) {
          const answered = new Set<string>();
          for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++)
            answered.add(messages[j]!.tool_call_id!);
          const missing = message.tool_calls.map((call) => call.id).filter((id) => !answered.has(id));
          if (missing.length) {
            return invalid(
              "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
                `The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
              `messages.[${i + 1}].role`,
            );
          }
        }
      }
      return undefined;
    },
    answer(turn, body, response) {
      const id = `chatcmpl-${Math.random().toString(36).slice(2)}`;
      const created = Math.floor(Date.now() / 1000);
      const model = String(body.model);
      const toolCalls = (turn.toolCalls ?? []).map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: JSON.stringify(call.args) },
      }));
      const finish = toolCalls.length ? 'tool_calls' : 'stop';
      const usage = { prompt_tokens: turn.usage?.input ?? 10, completion_tokens: turn.usage?.output ?? 5 };
      const usageBody = cache
        ? cache.charge(body, usage.completion_tokens)
        : { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
      if (!body.stream) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            id,
            object: 'chat.completion',
            created,
            model,
            choices: [
              {
                index: 0,
                message: {
                  role: 'assistant',
                  content: turn.text ?? null,
                  ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
                },
                finish_reason: finish,
              },
            ],
            usage: usageBody,
          }),
        );
        return;
      }
      const chunk = (delta: unknown, finishReason: string | null = null) => ({
        data: {
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          choices: [{ index: 0, delta, finish_reason: finishReason }],
        },
      });
      const events: Array<{ data: unknown }> = [chunk({ role: 'assistant', content: '' })];
      for (const piece of turn.chunks ?? (turn.text ?? '').match(/.{1,8}/gs) ?? [])
        events.push(chunk({ content: piece }));
      toolCalls.forEach((call, index) => {
        events.push(
          chunk({
            tool_calls: [
              { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
            ],
          }),
        );
        for (const piece of call.function.arguments.match(/.{1,5}/gs) ?? []) {
          events.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
        }
      });
      events.push(chunk({}, finish));
      events.push({
        data: { id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageBody },
      });
      sse(response, events, '[DONE]', turn.chunkDelayMs);
    },
  });
}

function invalid(message: string, param: string) {
  return { status: 400, body: { error: { message, type: 'invalid_request_error', param, code: null } } };
}
