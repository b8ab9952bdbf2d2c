import { createHash } from 'node:crypto';
import type { Message, ToolSchema } from '../common/messages.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { CacheTtl } from './options.ts';

/**
 * What a model step sent at the head of its request, in digests, kept beside the conversation
 * (`<id>#cache` in its memory store) so the next step can say why it missed the cache.
 */
export interface CacheTrace {
  /** Digest of the tool definitions, in their order. */
  tools: string;
  /** Digest of the system prompt (instructions and skills listing). */
  system: string;
  /** Compactions of the conversation when the step was sent, and old tool results left out of it. */
  compactions: number;
  dropped: number;
  /** When the step was sent, in milliseconds since the epoch, and the TTL it wrote with. */
  at: number;
  ttl: CacheTtl;
  /** Tokens of the prefix the provider holds after the step (what it read and wrote): the next step reads them. */
  cached: number;
}

const traceKey = (conversationId: string) => `${conversationId}#cache`;

/** The digests of a step's head, for its trace. */
export function headDigests(
  messages: readonly Message[],
  tools: readonly ToolSchema[],
): Pick<CacheTrace, 'tools' | 'system'> {
  const digest = (value: unknown) =>
    createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
  return {
    tools: digest(tools),
    system: digest(messages.filter((m) => m.role === 'system').map((m) => m.content)),
  };
}

export async function readCacheTrace(
  store: MemoryStore,
  conversationId: string,
): Promise<CacheTrace | undefined> {
  const [message] = await store.read(traceKey(conversationId), { before: 1 });
  return message ? (JSON.parse(message.content) as CacheTrace) : undefined;
}

/** Stores the trace of the step at `seq` (a later step's trace is never replaced by an earlier one's). */
export async function writeCacheTrace(
  store: MemoryStore,
  conversationId: string,
  seq: number,
  trace: CacheTrace,
): Promise<void> {
  await store.append(traceKey(conversationId), 0, [{ role: 'system', content: JSON.stringify(trace) }], {
    writer: 'latest-cache-trace',
    attempt: seq,
  });
}
