/** The UTC day of `at` (`YYYY-MM-DD`): the ledger's `day` groups and the daily token quota use it. */
export function utcDay(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** The start of the UTC day of `at`, in milliseconds. */
export function startOfUtcDay(at: number): number {
  const date = new Date(at);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
}

/** A minute, the window of `maxRunsPerMinute`. */
export const MINUTE_MS = 60_000;
