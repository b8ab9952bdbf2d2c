import { providerAndModel } from '../telemetry/gen-ai.ts';
import type { UsageGroupBy, UsageSums } from './types.ts';

/**
 * Dollars per million tokens of one model, by token class. Input the provider neither read from nor
 * wrote to its prompt cache is priced at `input`; cache reads at `cacheRead` (else `cachedInput`,
 * its older name, else `input`); cache writes at `cacheWrite5m` and `cacheWrite1h` by their TTL
 * (each else `input`, what a provider without write prices bills). Anthropic's list prices are
 * 0.1× input for a read, 1.25× for a 5-minute write and 2× for a 1-hour write.
 */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite5m?: number;
  cacheWrite1h?: number;
  /** The price of a cache read, as it was named before `cacheRead`. */
  cachedInput?: number;
}

/**
 * Prices by model: the model's name on the worker (e.g. `anthropic.messages:claude-sonnet-4-5`) or
 * the model id after the provider (`claude-sonnet-4-5`). Dollars per million tokens.
 */
export type Pricing = Record<string, ModelPrice>;

/** Usage added up over ledger lines. */
export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  /** Part of `input_tokens`, read from the provider's cache (when the provider says). */
  cached_input_tokens: number;
  /** Part of `input_tokens`, written to the provider's cache for 5 minutes. */
  cache_write_5m_tokens: number;
  /** Part of `input_tokens`, written to the provider's cache for 1 hour. */
  cache_write_1h_tokens: number;
  /** Part of `output_tokens`, spent reasoning (when the provider says). */
  reasoning_tokens: number;
  total_tokens: number;
  /** Runs and chat turns started from outside (sub-runs are counted apart, in `sub_runs`). */
  runs: number;
  sub_runs: number;
  /** Tool calls, sub-runs' included. */
  tool_calls: number;
  /** Tool calls by tool. */
  tools: Record<string, number>;
  /** Wall time of the runs and turns, added up, in milliseconds. */
  wall_ms: number;
  /** Dollars, with a `pricing` table (models it has no price for are in `unpriced_models`). */
  cost?: number;
}

/** What {@link AgentClient.usage} answers. */
export interface UsageReport {
  totals: UsageTotals;
  /** With `groupBy`: one line per tenant, agent, model or UTC day (`YYYY-MM-DD`), largest first (days in order). */
  groups?: Array<UsageTotals & { key: string }>;
  /** Models with tokens but no price in `pricing`: their tokens are not in `cost`. */
  unpriced_models?: string[];
}

function empty(): UsageTotals {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cached_input_tokens: 0,
    cache_write_5m_tokens: 0,
    cache_write_1h_tokens: 0,
    reasoning_tokens: 0,
    total_tokens: 0,
    runs: 0,
    sub_runs: 0,
    tool_calls: 0,
    tools: {},
    wall_ms: 0,
  };
}

/** The price of `model`: by its name on the worker, else by the model id after the provider. */
export function priceOf(pricing: Pricing, model: string): ModelPrice | undefined {
  return pricing[model] ?? pricing[providerAndModel(model).model];
}

/**
 * Dollars for one line's tokens, each input class at its price (see {@link ModelPrice}); a class
 * left out (optional in a run's `Usage`) counts none.
 */
export function costOf(
  entry: Pick<UsageSums, 'input_tokens' | 'output_tokens'> &
    Partial<Pick<UsageSums, 'cached_input_tokens' | 'cache_write_5m_tokens' | 'cache_write_1h_tokens'>>,
  price: ModelPrice,
): number {
  const read = entry.cached_input_tokens ?? 0;
  const write5m = entry.cache_write_5m_tokens ?? 0;
  const write1h = entry.cache_write_1h_tokens ?? 0;
  const fresh = entry.input_tokens - read - write5m - write1h;
  return (
    (fresh * price.input +
      read * (price.cacheRead ?? price.cachedInput ?? price.input) +
      write5m * (price.cacheWrite5m ?? price.input) +
      write1h * (price.cacheWrite1h ?? price.input) +
      entry.output_tokens * price.output) /
    1_000_000
  );
}

function add(totals: UsageTotals, entry: UsageSums, cost: number | undefined): void {
  totals.input_tokens += entry.input_tokens;
  totals.output_tokens += entry.output_tokens;
  totals.cached_input_tokens += entry.cached_input_tokens;
  totals.cache_write_5m_tokens += entry.cache_write_5m_tokens;
  totals.cache_write_1h_tokens += entry.cache_write_1h_tokens;
  totals.reasoning_tokens += entry.reasoning_tokens;
  totals.total_tokens += entry.total_tokens;
  totals.runs += entry.runs;
  totals.sub_runs += entry.sub_runs;
  totals.wall_ms += entry.wall_ms;
  for (const [tool, calls] of Object.entries(entry.tool_calls)) {
    totals.tools[tool] = (totals.tools[tool] ?? 0) + calls;
    totals.tool_calls += calls;
  }
  if (cost !== undefined) totals.cost = (totals.cost ?? 0) + cost;
}

/**
 * The report of what a store summed per group and model (`UsageStore.sums`): totals, and per group
 * with `groupBy`; with `pricing`, cost too (prices are linear, so pricing sums is exact).
 */
export function summarizeUsage(
  entries: UsageSums[],
  opts: { groupBy?: UsageGroupBy; pricing?: Pricing } = {},
): UsageReport {
  const totals = empty();
  const groups = new Map<string, UsageTotals>();
  const unpriced = new Set<string>();
  if (opts.pricing) totals.cost = 0;
  for (const entry of entries) {
    let cost: number | undefined;
    if (opts.pricing) {
      const price = priceOf(opts.pricing, entry.model);
      if (price) cost = costOf(entry, price);
      else if (entry.total_tokens > 0) unpriced.add(entry.model);
      cost ??= 0;
    }
    add(totals, entry, cost);
    if (opts.groupBy) {
      const key = entry.group;
      const group = groups.get(key) ?? { ...empty(), ...(opts.pricing ? { cost: 0 } : {}) };
      add(group, entry, cost);
      groups.set(key, group);
    }
  }
  const report: UsageReport = { totals };
  if (opts.groupBy) {
    const lines = [...groups].map(([key, group]) => ({ key, ...group }));
    lines.sort(
      opts.groupBy === 'day'
        ? (a, b) => a.key.localeCompare(b.key)
        : (a, b) => b.total_tokens - a.total_tokens,
    );
    report.groups = lines;
  }
  if (unpriced.size) report.unpriced_models = [...unpriced].sort();
  return report;
}
