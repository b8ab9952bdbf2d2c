import type { Usage } from '../common/messages.ts';

/** No tokens. */
export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
}

/** The token counts a run's usage may have, added up by {@link addUsage}. */
const COUNTS = [
  'cached_input_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'reasoning_tokens',
] as const;

/** Tokens of two runs added up (a count either one has, its cache reads and writes and reasoning, too). */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
  for (const key of COUNTS) {
    if (a[key] !== undefined || b[key] !== undefined) sum[key] = (a[key] ?? 0) + (b[key] ?? 0);
  }
  return sum;
}

/** What a run's failure says. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
