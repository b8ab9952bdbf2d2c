/** A provider's request rate for one credential key, across every worker of the fleet. */
export interface RateLimit {
  /** Tool calls per second that may start, per account (or for the whole fleet with `per: 'fleet'`). */
  perSecond: number;
  /**
   * Whose rate it is. `'account'` (the default): each account at the provider gets `perSecond` — a
   * tenant's runs read the tenant's own record, so each tenant is an account, and runs without a
   * tenant share the shared record's; Temporal enforces it per fairness key on the key's task queue
   * (the cluster needs fairness on: `matching.enableFairness`). `'fleet'`: one rate for every call
   * of the key, whoever makes it (Temporal's task-queue activity rate limit; any cluster).
   */
  per?: 'account' | 'fleet';
}

/**
 * Provider rate limits by credential key (the `credentialKey` of a tool or an MCP server): the calls
 * that read a limited key run on a task queue of their own whose dispatch rate Temporal enforces for
 * every worker that polls it (docs/tenants.md).
 */
export type RateLimits = Record<string, RateLimit>;

/**
 * A 429 whose Retry-After is longer than this (ms) waits on a durable workflow timer (no worker
 * slot held) instead of an activity retry. Default of `timeouts.longRetryAfterMs`.
 */
export const DEFAULT_LONG_RETRY_AFTER_MS = 10_000;

/**
 * The failure type of a model step the provider rate-limited with a long Retry-After: not retried
 * by the activity; the workflow waits on a timer, then asks again (details: `{ retryAfterMs }`).
 */
export const LONG_RATE_LIMIT_TYPE = 'LongRateLimit';

/** How many times one tool call waits out a long Retry-After before the model is told of the rate limit. */
export const MAX_RATE_LIMIT_WAITS = 20;

/** A tool call the provider rate-limited with a long Retry-After: the workflow waits, then calls again. */
export interface RateLimitedCall {
  retryAfterMs: number;
  /** The provider's message (redacted). */
  message: string;
}
