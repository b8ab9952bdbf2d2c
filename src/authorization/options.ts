import {
  DEFAULT_AUTHORIZATION_TIMEOUT_MS,
  type AuthorizationTimeoutAction,
  type ResolvedAuthorization,
} from '../common/authorization.ts';
import { ConfigurationError } from '../errors.ts';
import type { OAuthHelper } from '../oauth/helper.ts';

/**
 * Authorization in the middle of a run: a tool call that meets a missing, `needs_reauth` or
 * under-scoped credential whose key has a helper here asks the user (`authorization_required` with
 * the helper's URL), waits durably, and runs again once the grant arrives.
 */
export interface AuthorizationOptions {
  /**
   * The OAuth helper that serves each credential key: `DriveSuiteOAuthHelper` for `mail`,
   * `file_drive`, `calendar`; `ChatOAuthHelper` for `chat`; any `OAuthHelper` for custom connectors.
   * Its state store must be the one the callback route's helper reads.
   */
  helpers: Record<string, OAuthHelper>;
  /** How long a call waits for the grant. Default 24 h. */
  timeoutMs?: number;
  /**
   * Without a grant in time: `'continue'` (default) answers the model "not authorized" and goes on;
   * `'stop'` ends the run with `stop_reason: 'authorization_timeout'`.
   */
  onTimeout?: AuthorizationTimeoutAction;
  /**
   * How often a waiting call looks in the credential store itself, for a token stored without a
   * wake-up (each look is a short activity in the run's history). Default 1 minute.
   */
  checkEveryMs?: number;
}

/** An agent's authorization settings, checked when the worker is created. */
export interface RegisteredAuthorization extends ResolvedAuthorization {
  helpers: ReadonlyMap<string, OAuthHelper>;
}

/** Checks `options` of agent `agent`; undefined when the agent has none. */
export function resolveAuthorization(
  agent: string,
  options: AuthorizationOptions | undefined,
): RegisteredAuthorization | undefined {
  if (!options) return undefined;
  const where = `Agent "${agent}": authorization`;
  if (!options.helpers || typeof options.helpers !== 'object')
    throw new ConfigurationError(`${where}.helpers must map credential keys to OAuth helpers.`);
  const helpers = new Map(Object.entries(options.helpers));
  for (const [key, helper] of helpers) {
    if (typeof helper?.buildAuthorizationUrl !== 'function')
      throw new ConfigurationError(
        `${where}.helpers.${key} is not an OAuth helper (no buildAuthorizationUrl).`,
      );
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_AUTHORIZATION_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new ConfigurationError(
      `${where}.timeoutMs must be a positive number of milliseconds (got ${timeoutMs}).`,
    );
  const onTimeout = options.onTimeout ?? 'continue';
  if (onTimeout !== 'continue' && onTimeout !== 'stop')
    throw new ConfigurationError(
      `${where}.onTimeout must be 'continue' or 'stop' (got ${String(onTimeout)}).`,
    );
  const checkEveryMs = options.checkEveryMs;
  if (checkEveryMs !== undefined && (!Number.isFinite(checkEveryMs) || checkEveryMs < 1_000))
    throw new ConfigurationError(`${where}.checkEveryMs must be at least 1000 ms (got ${checkEveryMs}).`);
  return { helpers, timeoutMs, onTimeout, ...(checkEveryMs !== undefined ? { checkEveryMs } : {}) };
}
