import { RateLimitError } from '../errors.ts';
import type { SecretSet } from '../redaction.ts';
import type { RateLimitedCall } from './types.ts';

/**
 * A rate limit whose Retry-After is longer than `longRetryAfterMs`: the call's outcome says so and
 * the workflow waits on a timer (an activity retry would do too, but counts against the call's
 * attempts and its wait is not visible in the run's events). Shorter ones are retried as usual.
 */
export function longRateLimit(
  error: unknown,
  longRetryAfterMs: number,
  secrets: SecretSet,
): RateLimitedCall | undefined {
  if (!(error instanceof RateLimitError)) return undefined;
  const retryAfterMs = error.retryAfterMs;
  if (retryAfterMs === undefined || retryAfterMs <= longRetryAfterMs) return undefined;
  return { retryAfterMs, message: secrets.redact(error.message).slice(0, 500) };
}
