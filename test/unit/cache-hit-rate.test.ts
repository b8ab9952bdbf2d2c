import { describe, expect, it } from 'vitest';
import { cacheHitRate } from '../../src/usage/hit-rate.ts';

describe('the cache hit rate the usage command prints', () => {
  it('is the share of input tokens read from the cache, or a dash without input', () => {
    expect(cacheHitRate({ input_tokens: 12_000, cached_input_tokens: 10_000 })).toBe('83.3%');
    expect(cacheHitRate({ input_tokens: 500, cached_input_tokens: 0 })).toBe('0.0%');
    expect(cacheHitRate({ input_tokens: 0, cached_input_tokens: 0 })).toBe('-');
  });
});
