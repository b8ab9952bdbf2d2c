import { describe, expect, it } from 'vitest';
import { cacheMissNote } from '../../src/caching/miss-note.ts';
import type { CacheTrace } from '../../src/caching/trace.ts';

const before: CacheTrace = {
  tools: 't1',
  system: 's1',
  compactions: 0,
  dropped: 0,
  at: 1_000_000,
  ttl: '5m',
  cached: 4800,
};
const same = { tools: 't1', system: 's1', compactions: 0, dropped: 0, at: 1_060_000 };
const missed = { input_tokens: 5000, output_tokens: 10, total_tokens: 5010, cache_write_5m_tokens: 4800 };

describe('why a step missed the prompt cache', () => {
  it('says nothing of a step that read what the step before cached, or of one after a step that cached nothing', () => {
    const hit = { ...missed, cached_input_tokens: 4800, cache_write_5m_tokens: 100 };
    expect(cacheMissNote(hit, before, same)).toBeUndefined();
    // Read less than the step before cached, though it wrote less than it read: a miss all the same.
    const partial = { ...missed, cached_input_tokens: 3500, cache_write_5m_tokens: 1300 };
    expect(cacheMissNote(partial, before, same)?.reason).toBe('unknown');
    expect(cacheMissNote(missed, { ...before, cached: 0 }, same)).toBeUndefined();
    expect(cacheMissNote(missed, undefined, same)).toBeUndefined();
  });

  it.each([
    ['tools', { ...same, tools: 't2', system: 's2' }],
    ['system_prompt', { ...same, system: 's2' }],
    ['compaction', { ...same, compactions: 1 }],
    ['compaction', { ...same, dropped: 1 }],
    ['ttl_expired', { ...same, at: before.at + 6 * 60_000 }],
    ['unknown', same],
  ] as const)('names %s as what changed', (reason, now) => {
    const note = cacheMissNote(missed, before, now);
    expect(note?.reason).toBe(reason);
    expect(note?.message).toMatch(/^Wrote 4800 tokens to the prompt cache and read 0: /);
  });

  it('lets a 1-hour entry live past 5 minutes', () => {
    const note = cacheMissNote(missed, { ...before, ttl: '1h' }, { ...same, at: before.at + 10 * 60_000 });
    expect(note?.reason).toBe('unknown');
  });
});
