import type { CacheNote, Message, ToolSchema, Usage } from '../common/messages.ts';
import type { ContextReport } from '../context/types.ts';
import type { MemoryStore } from '../memory/types.ts';
import { cacheMissNote } from './miss-note.ts';
import type { CacheRequest } from './options.ts';
import { headDigests, readCacheTrace, writeCacheTrace } from './trace.ts';

/**
 * After a step the provider answered: its `cache` note (why it missed, see {@link cacheMissNote})
 * against the trace the step before left, and its own trace for the next step when there is
 * something to trace.
 */
export async function noteCacheStep(
  store: MemoryStore,
  step: { conversationId: string; seq: number; sentAt: number },
  request: { messages: readonly Message[]; tools: readonly ToolSchema[]; cache: CacheRequest },
  report: ContextReport,
  usage: Usage | undefined,
): Promise<CacheNote | undefined> {
  const now = {
    ...headDigests(request.messages, request.tools),
    compactions: report.compactions,
    dropped: report.dropped_tool_results,
    at: step.sentAt,
  };
  const previous = await readCacheTrace(store, step.conversationId);
  const note = cacheMissNote(usage, previous, now);
  const cached =
    (usage?.cached_input_tokens ?? 0) +
    (usage?.cache_write_5m_tokens ?? 0) +
    (usage?.cache_write_1h_tokens ?? 0);
  // A conversation whose provider never caches leaves no trace (one read a step, no write).
  if (cached || previous?.cached)
    await writeCacheTrace(store, step.conversationId, step.seq, { ...now, ttl: request.cache.ttl, cached });
  return note;
}
