import { emptySums, SUM_COLUMNS } from './sums.ts';
import type { UsageEntry, UsageFilter, UsageGroupBy, UsageSums } from './types.ts';

/** Columns added after the first ledgers were made: stores add them to an older table. */
export const CACHE_WRITE_COLUMNS = ['cache_write_5m_tokens', 'cache_write_1h_tokens'] as const;

/** The ledger's columns, in the order the SQL stores write them. */
export const ENTRY_COLUMNS = [
  'key',
  'at',
  'tenant',
  'agent',
  'model',
  'workflow_id',
  ...SUM_COLUMNS,
  'tool_calls',
] as const;

/** `entry` as the values of {@link ENTRY_COLUMNS} (tool calls as JSON text). */
export function entryValues(entry: UsageEntry): Array<string | number> {
  return ENTRY_COLUMNS.map((column) =>
    column === 'tool_calls' ? JSON.stringify(entry.tool_calls) : entry[column],
  );
}

/** A row a SQL store read back, as an entry (numbers may come back as strings or bigints). */
export function entryFromRow(row: Record<string, unknown>): UsageEntry {
  const number = (column: string): number => Number(row[column] ?? 0);
  const calls = row.tool_calls;
  return {
    key: String(row.key),
    at: number('at'),
    tenant: String(row.tenant),
    agent: String(row.agent),
    model: String(row.model),
    workflow_id: String(row.workflow_id),
    input_tokens: number('input_tokens'),
    output_tokens: number('output_tokens'),
    cached_input_tokens: number('cached_input_tokens'),
    cache_write_5m_tokens: number('cache_write_5m_tokens'),
    cache_write_1h_tokens: number('cache_write_1h_tokens'),
    reasoning_tokens: number('reasoning_tokens'),
    total_tokens: number('total_tokens'),
    runs: number('runs'),
    sub_runs: number('sub_runs'),
    wall_ms: number('wall_ms'),
    tool_calls: (typeof calls === 'string' ? JSON.parse(calls) : (calls ?? {})) as Record<string, number>,
  };
}

/**
 * The `WHERE` clause (or `''`) of a ledger query and its values; `placeholder(n)` writes the n-th
 * parameter as the database wants it (`?` in SQLite, `$n` in PostgreSQL).
 */
export function whereOf(
  filter: UsageFilter,
  placeholder: (n: number) => string,
): { where: string; values: Array<string | number> } {
  const values: Array<string | number> = [];
  const conditions: string[] = [];
  const add = (condition: string, value: string | number) => {
    values.push(value);
    conditions.push(`${condition} ${placeholder(values.length)}`);
  };
  if (filter.tenant !== undefined) add('tenant =', filter.tenant);
  if (filter.agent !== undefined) add('agent =', filter.agent);
  if (filter.since) add('at >=', filter.since.getTime());
  if (filter.until) add('at <', filter.until.getTime());
  return { where: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', values };
}

/** The SQL of a group (`'' ` without `groupBy`); `day` is the UTC date of `at`, as each database writes it. */
export function groupSql(groupBy: UsageGroupBy | undefined, dialect: 'sqlite' | 'postgres'): string {
  if (groupBy === undefined) return "''";
  if (groupBy !== 'day') return groupBy;
  return dialect === 'sqlite'
    ? "strftime('%Y-%m-%d', at / 1000, 'unixepoch')"
    : "to_char(to_timestamp(at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')";
}

/** Sums lines (tokens, runs) and tool lines, as rows of the two `sums` queries, into {@link UsageSums}. */
export function sumsFromRows(
  rows: Array<Record<string, unknown>>,
  tools: Array<Record<string, unknown>>,
): UsageSums[] {
  const sums = rows.map((row) => {
    const line = emptySums(String(row.grp), String(row.model));
    for (const column of SUM_COLUMNS) line[column] = Number(row[column] ?? 0);
    return line;
  });
  const byGroup = new Map<string, UsageSums>();
  for (const row of tools) {
    const group = String(row.grp);
    const line = byGroup.get(group) ?? emptySums(group, '');
    line.tool_calls[String(row.tool)] = Number(row.calls);
    byGroup.set(group, line);
  }
  return [...sums, ...byGroup.values()];
}

/** The SELECT list of the sums query. */
export const SUMS_SELECT = SUM_COLUMNS.map((column) => `SUM(${column}) AS ${column}`).join(', ');
