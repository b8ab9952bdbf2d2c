import { parseTimePoint } from './since.ts';
import type { Pricing } from './summary.ts';
import type { UsageFilter, UsageGroupBy } from './types.ts';
import { ConfigurationError } from '../errors.ts';

/** What {@link AgentClient.usage} reads: whose usage, which time range, how grouped, at what prices. */
export interface UsageQuery {
  tenant?: string;
  agent?: string;
  /** From this time on: a Date, a date string, or a duration back from now (`7d`, `12h`). */
  since?: Date | string;
  /** Before this time (same forms as `since`). */
  until?: Date | string;
  groupBy?: UsageGroupBy;
  /** Dollars per million tokens by model: the report then has `cost`. */
  pricing?: Pricing;
}

const GROUPS: readonly UsageGroupBy[] = ['tenant', 'agent', 'model', 'day'];

/** The store filter of a query, checked (a bad `groupBy`, time or price fails with what to give instead). */
export function usageFilter(query: UsageQuery): UsageFilter {
  if (query.groupBy !== undefined && !GROUPS.includes(query.groupBy))
    throw new ConfigurationError(
      `groupBy must be one of ${GROUPS.join(', ')} (got ${JSON.stringify(query.groupBy)}).`,
    );
  for (const [model, price] of Object.entries(query.pricing ?? {})) {
    const fields = [
      price?.input,
      price?.output,
      price?.cacheRead ?? 0,
      price?.cacheWrite5m ?? 0,
      price?.cacheWrite1h ?? 0,
      price?.cachedInput ?? 0,
    ];
    if (!fields.every((value) => typeof value === 'number' && value >= 0))
      throw new ConfigurationError(
        `pricing["${model}"] needs input and output (and optionally cacheRead, cacheWrite5m and cacheWrite1h) in dollars per million tokens, each a number of at least 0.`,
      );
  }
  const time = (value: Date | string | undefined): Date | undefined =>
    value === undefined ? undefined : value instanceof Date ? value : parseTimePoint(value);
  const since = time(query.since);
  const until = time(query.until);
  return {
    ...(query.tenant !== undefined ? { tenant: query.tenant } : {}),
    ...(query.agent !== undefined ? { agent: query.agent } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
  };
}
