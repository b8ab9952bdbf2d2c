import type { UsageEntry, UsageFilter } from './types.ts';

/** Whether `entry` is one of the lines `filter` asks for. */
export function matches(entry: UsageEntry, filter: UsageFilter): boolean {
  return (
    (filter.tenant === undefined || entry.tenant === filter.tenant) &&
    (filter.agent === undefined || entry.agent === filter.agent) &&
    (filter.since === undefined || entry.at >= filter.since.getTime()) &&
    (filter.until === undefined || entry.at < filter.until.getTime())
  );
}
