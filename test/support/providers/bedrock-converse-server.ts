import type { ServerResponse } from 'node:http';
import { crc32 } from 'node:zlib';
import type { AnthropicPromptCache } from './anthropic-cache.ts';
import { startProviderServer, type ProviderScript, type ProviderServer } from './scripted-provider.ts';

type Block = Record<string, unknown>;
interface ConverseMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/**
 * Amazon Bedrock's Converse stream (`POST /model/{modelId}/converse-stream`) for one model, answered
 * in AWS's binary event-stream framing as the service does. With a `cache`, bills each request as
 * Bedrock's prompt cache for Claude does: a `cachePoint` block caches the prefix before it (tools,
 * system, messages), by the same rules as Anthropic's `cache_control` (the cache is Anthropic's
 * stand-in, fed the request with each cache point turned into a marker on the block before it), and
 * the usage carries `cacheReadInputTokens`, `cacheWriteInputTokens` and `cacheDetails` by TTL. A
 * request with more than four cache points gets the service's `ValidationException`.
 */
export function startBedrockConverseServer(
  modelId: string,
  turns: ProviderScript,
  cache?: AnthropicPromptCache,
): Promise<ProviderServer> {
  return startProviderServer({
    path: `/model/${encodeURIComponent(modelId)}/converse-stream`,
    turns,
    validate(body) {
      const refusal = cache?.refusal(asAnthropic(body, modelId));
      return refusal
        ? { status: 400, body: { message: `The model returned the following errors: ${refusal}` } }
        : undefined;
    },
    answer(turn, body, response) {
      const output = turn.usage?.output ?? 5;
      const charged = cache?.charge(asAnthropic(body, modelId), output);
      const usage = charged
        ? {
            inputTokens: charged.input_tokens,
            outputTokens: output,
            totalTokens:
              charged.input_tokens +
              charged.cache_read_input_tokens +
              charged.cache_creation_input_tokens +
              output,
            cacheReadInputTokens: charged.cache_read_input_tokens,
            cacheWriteInputTokens: charged.cache_creation_input_tokens,
            cacheDetails: (['5m', '1h'] as const)
              .map((ttl) => ({ ttl, inputTokens: charged.cache_creation[`ephemeral_${ttl}_input_tokens`] }))
              .filter((detail) => detail.inputTokens > 0),
          }
        : {
            inputTokens: turn.usage?.input ?? 10,
            outputTokens: output,
            totalTokens: (turn.usage?.input ?? 10) + output,
          };
      const events: Array<[string, Block]> = [['messageStart', { role: 'assistant' }]];
      let index = 0;
      if (turn.text) {
        for (const piece of turn.chunks ?? turn.text.match(/.{1,10}/gs) ?? [])
          events.push(['contentBlockDelta', { contentBlockIndex: index, delta: { text: piece } }]);
        events.push(['contentBlockStop', { contentBlockIndex: index++ }]);
      }
      for (const call of turn.toolCalls ?? []) {
        events.push([
          'contentBlockStart',
          { contentBlockIndex: index, start: { toolUse: { toolUseId: call.id, name: call.name } } },
        ]);
        events.push([
          'contentBlockDelta',
          { contentBlockIndex: index, delta: { toolUse: { input: JSON.stringify(call.args) } } },
        ]);
        events.push(['contentBlockStop', { contentBlockIndex: index++ }]);
      }
      events.push(['messageStop', { stopReason: turn.toolCalls?.length ? 'tool_use' : 'end_turn' }]);
      events.push(['metadata', { usage, metrics: { latencyMs: 10 } }]);
      writeEventStream(response, events);
    },
  });
}

/** The Converse request as an Anthropic Messages body: each `cachePoint` a `cache_control` on the block before it. */
function asAnthropic(body: Record<string, unknown>, modelId: string): Record<string, unknown> {
  const marked = (blocks: Block[]): Block[] => {
    const out: Block[] = [];
    for (const block of blocks) {
      const point = block.cachePoint as { ttl?: string } | undefined;
      if (!point) out.push(block);
      else if (out.length)
        out[out.length - 1] = {
          ...out.at(-1),
          cache_control: { type: 'ephemeral', ...(point.ttl ? { ttl: point.ttl } : {}) },
        };
    }
    return out;
  };
  const toolConfig = body.toolConfig as { tools?: Block[] } | undefined;
  return {
    model: modelId,
    tools: marked(toolConfig?.tools ?? []),
    system: marked((body.system as Block[] | undefined) ?? []),
    messages: (body.messages as ConverseMessage[]).map((m) => ({ role: m.role, content: marked(m.content) })),
  };
}

/** Writes `events` as AWS event-stream messages (prelude, headers, JSON payload, CRC32s), then ends. */
function writeEventStream(response: ServerResponse, events: Array<[string, Block]>): void {
  response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
  for (const [type, payload] of events) response.write(eventMessage(type, payload));
  response.end();
}

function eventMessage(type: string, payload: Block): Buffer {
  const headers = Buffer.concat(
    Object.entries({
      ':event-type': type,
      ':content-type': 'application/json',
      ':message-type': 'event',
    }).map(([name, value]) => {
      const nameBytes = Buffer.from(name);
      const valueBytes = Buffer.from(value);
      const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
      header.writeUInt8(nameBytes.length, 0);
      nameBytes.copy(header, 1);
      header.writeUInt8(7, 1 + nameBytes.length); // string
      header.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
      valueBytes.copy(header, 4 + nameBytes.length);
      return header;
    }),
  );
  const body = Buffer.from(JSON.stringify(payload));
  const total = 12 + headers.length + body.length + 4;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headers.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headers.copy(message, 12);
  body.copy(message, 12 + headers.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - 4)), total - 4);
  return message;
}
