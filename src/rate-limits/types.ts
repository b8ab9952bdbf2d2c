/** A provider's request rate for one credential key, across every worker of the fleet. */
export interface RateLimit {
  /** Tool calls per second that may start, fleet-wide (Temporal's task-queue activity rate limit). */
  perSecond: number;
}

/**
 * Provider rate limits by credential key (the `credentialKey` of a tool): the calls of tools that
 * read a limited key run on a task queue of their own whose dispatch rate Temporal enforces for
 * every worker that polls it (docs/tenants.md).
 */
export type RateLimits = Record<string, RateLimit>;

/**
 * A 429 whose Retry-After is longer than this (ms) waits on a durable workflow timer (no worker
 * slot held) instead of an activity retry. Default of `timeouts.longRetryAfterMs`.
 */
export const DEFAULT_LONG_RETRY_AFTER_MS = 10_000;

/** How many times one tool call waits out a long Retry-After before the model is told of the rate limit. */
export const MAX_RATE_LIMIT_WAITS = 20;

/** A tool call the provider rate-limited with a long Retry-After: the workflow waits, then calls again. */
export interface RateLimitedCall {
  retryAfterMs: number;
  /** The provider's message (redacted). */
  message: string;
}
