/**
 * Milliseconds to wait, from `retry-after-ms` (some APIs) or `Retry-After` (RFC 9110: delay in
 * seconds, or an HTTP date). Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(
  headers: Record<string, string | undefined>,
  now: number = Date.now(),
): number | undefined {
  const ms = headers['retry-after-ms'];
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.max(0, Math.round(Number(ms)));
  const value = headers['retry-after']?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.max(0, Math.round(Number(value) * 1000));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
