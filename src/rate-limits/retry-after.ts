import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { RateLimitError } from '../errors.ts';
import { SecretSet } from '../redaction.ts';
import { LONG_RATE_LIMIT_TYPE, type RateLimitedCall } from './types.ts';

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

/**
 * A model step's long rate limit as the failure the workflow waits out on a timer (then asks again,
 * with the step's attempts whole); undefined for any other error, which is retried as usual.
 */
export function longRateLimitFailure(
  error: unknown,
  longRetryAfterMs: number | undefined,
): ApplicationFailure | undefined {
  const limited = longRateLimit(error, longRetryAfterMs ?? Infinity, new SecretSet());
  if (!limited) return undefined;
  return ApplicationFailure.create({
    message: limited.message,
    type: LONG_RATE_LIMIT_TYPE,
    nonRetryable: true,
    // Expected: the run waits and goes on. Logged at DEBUG, not as a failed activity.
    category: ApplicationFailureCategory.BENIGN,
    details: [{ retryAfterMs: limited.retryAfterMs }],
  });
}
