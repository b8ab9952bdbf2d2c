import { utcDay } from './ledger-keys.ts';
import type { UsageEntry, UsageGroupBy, UsageSums } from './types.ts';

/** The numeric columns a store adds up. */
export const SUM_COLUMNS = [
  'input_tokens',
  'output_tokens',
  'cached_input_tokens',
  'cache_write_5m_tokens',
  'cache_write_1h_tokens',
  'reasoning_tokens',
  'total_tokens',
  'runs',
  'sub_runs',
  'wall_ms',
] as const;

/** The group an entry belongs to. */
export function groupOf(entry: UsageEntry, groupBy: UsageGroupBy | undefined): string {
  if (groupBy === undefined) return '';
  return groupBy === 'day' ? utcDay(entry.at) : entry[groupBy];
}

/** Entries added up per group and model, as a SQL store's `sums` answers them (the in-memory store's way). */
export function sumEntries(entries: UsageEntry[], groupBy: UsageGroupBy | undefined): UsageSums[] {
  const sums = new Map<string, UsageSums>();
  for (const entry of entries) {
    const group = groupOf(entry, groupBy);
    const key = JSON.stringify([group, entry.model]);
    const line = sums.get(key) ?? { ...emptySums(group, entry.model) };
    for (const column of SUM_COLUMNS) line[column] += entry[column];
    for (const [tool, calls] of Object.entries(entry.tool_calls))
      line.tool_calls[tool] = (line.tool_calls[tool] ?? 0) + calls;
    sums.set(key, line);
  }
  return [...sums.values()];
}

/** A sums line with nothing in it. */
export function emptySums(group: string, model: string): UsageSums {
  const line = { group, model, tool_calls: {} } as UsageSums;
  for (const column of SUM_COLUMNS) line[column] = 0;
  return line;
}
