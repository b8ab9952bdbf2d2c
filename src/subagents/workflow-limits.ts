import type { RunLimits } from '../common/control.ts';
import type { Usage } from '../common/messages.ts';

/**
 * A child run's limits: its own (run over definition), capped field by field by what its parent had
 * left when it started (`inherited`). Without a parent, its own.
 */
export function childLimits(
  own: RunLimits | undefined,
  inherited: RunLimits | undefined,
): RunLimits | undefined {
  if (!inherited) return own;
  const lower = (a: number | undefined, b: number | undefined): number | undefined =>
    a === undefined ? b : b === undefined ? a : Math.min(a, b);
  const limits: RunLimits = {};
  const tokens = lower(own?.maxTotalTokens, inherited.maxTotalTokens);
  const calls = lower(own?.maxToolCalls, inherited.maxToolCalls);
  if (tokens !== undefined) limits.maxTotalTokens = tokens;
  if (calls !== undefined) limits.maxToolCalls = calls;
  return limits;
}

/**
 * What is left of a run's budgets now: what a sub-agent it starts may spend (the child's spending
 * then counts in the parent's). Undefined when the run has no limits.
 */
export function limitsLeft(
  limits: RunLimits | undefined,
  used: Usage,
  toolCalls: number,
): RunLimits | undefined {
  if (!limits) return undefined;
  const left: RunLimits = {};
  // A budget already spent still gives the child a floor of 1, so its first check stops it.
  if (limits.maxTotalTokens !== undefined)
    left.maxTotalTokens = Math.max(1, limits.maxTotalTokens - used.total_tokens);
  if (limits.maxToolCalls !== undefined) left.maxToolCalls = Math.max(0, limits.maxToolCalls - toolCalls);
  return left;
}

/** The token classes that are part of the input or output, added up only where a step gave them. */
const PART_COUNTS = [
  'cached_input_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'reasoning_tokens',
] as const;

/** Adds `more` into `total` (a step's or a child's usage into its run's). */
export function addUsage(total: Usage, more: Usage): void {
  total.input_tokens += more.input_tokens;
  total.output_tokens += more.output_tokens;
  total.total_tokens += more.total_tokens;
  for (const part of PART_COUNTS) if (more[part]) total[part] = (total[part] ?? 0) + more[part];
}
