import type { CacheMissReason, CacheNote, Usage } from '../common/messages.ts';
import type { CacheTrace } from './trace.ts';

const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

const SAID: Record<CacheMissReason, string> = {
  tools: 'the tool definitions changed',
  system_prompt: 'the system prompt changed',
  compaction: 'the conversation was compacted (or old tool results were left out)',
  ttl_expired: 'the cached prefix expired before this step',
  unknown:
    'nothing the runtime changed (the provider dropped the entry early, or an earlier message was rewritten)',
};

/**
 * The note of a step that missed the prefix the step before cached (`previous.cached` tokens): it
 * read less than that, or wrote more than it read. Undefined for a step that read it whole, or
 * after a step that cached nothing. Names the first change found, in the order the request is built
 * (tools, system prompt, compaction), else the time since the previous step against its TTL.
 */
export function cacheMissNote(
  usage: Usage | undefined,
  previous: CacheTrace | undefined,
  now: Omit<CacheTrace, 'ttl' | 'cached'>,
): CacheNote | undefined {
  if (!usage || !previous?.cached) return undefined;
  const read = usage.cached_input_tokens ?? 0;
  const written = (usage.cache_write_5m_tokens ?? 0) + (usage.cache_write_1h_tokens ?? 0);
  if (read >= previous.cached && written <= read) return undefined;
  const reason: CacheMissReason =
    now.tools !== previous.tools
      ? 'tools'
      : now.system !== previous.system
        ? 'system_prompt'
        : now.compactions !== previous.compactions || now.dropped > previous.dropped
          ? 'compaction'
          : now.at - previous.at > TTL_MS[previous.ttl]
            ? 'ttl_expired'
            : 'unknown';
  return {
    reason,
    message: `Wrote ${written} tokens to the prompt cache and read ${read}: ${SAID[reason]}.`,
  };
}
