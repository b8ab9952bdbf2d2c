import type { QuotaExceededDetails } from '../errors.ts';

/** The failure type of a refused run or model step (workflow-safe): the client turns it back into a `QuotaExceededError`. */
export const QUOTA_FAILURE_TYPE = 'QuotaExceededError';

/** Whether `error` (a failure, or an activity failure around one) is a quota refusal. */
export function isQuotaFailure(error: unknown): boolean {
  return quotaFailureMessage(error) !== undefined;
}

/** The message of a quota refusal in `error` or its causes; undefined when it is something else. */
export function quotaFailureMessage(error: unknown): string | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { type?: unknown }).type === QUOTA_FAILURE_TYPE) return e.message;
  }
  return undefined;
}

/** What a quota refusal in `error` or its causes says (its quota, limit, reset); undefined when it is something else. */
export function quotaFailureDetails(error: unknown): QuotaExceededDetails | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if ((e as { type?: unknown }).type !== QUOTA_FAILURE_TYPE) continue;
    const details = (e as { details?: unknown[] }).details?.[0];
    return details && typeof details === 'object' ? (details as QuotaExceededDetails) : undefined;
  }
  return undefined;
}
