import type { UsageTotals } from './summary.ts';

/**
 * The share of input tokens read from the provider's prompt cache, as the CLI prints it
 * (`'83.4%'`), or `'-'` without input tokens.
 */
export function cacheHitRate(totals: Pick<UsageTotals, 'input_tokens' | 'cached_input_tokens'>): string {
  if (totals.input_tokens <= 0) return '-';
  return `${((100 * totals.cached_input_tokens) / totals.input_tokens).toFixed(1)}%`;
}
