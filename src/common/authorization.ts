/**
 * Authorization in the middle of a run (docs/control.md, "Authorization in the middle of a run"): names and
 * shapes shared by workflow, activity and client code; no imports.
 */

/** Why a tool call needs the user to authorize: no record, a refused refresh token, or a missing scope. */
export type AuthorizationReason = 'missing' | 'needs_reauth' | 'insufficient_scope';

/** What a run does when no grant arrives in time: answer the model "not authorized" and go on, or stop. */
export type AuthorizationTimeoutAction = 'continue' | 'stop';

/** What the workflow is told about mid-run authorization when a turn starts. */
export interface ResolvedAuthorization {
  timeoutMs: number;
  onTimeout: AuthorizationTimeoutAction;
  /** How often a waiting call looks in the store itself; absent: {@link AUTHORIZATION_CHECK_EVERY_MS}. */
  checkEveryMs?: number;
}

/**
 * What a tool call asks of the user (`authorization_required` payload, `pendingAuthorizations()`):
 * open `url`, grant, and the call runs again. No secret: the URL carries a state and a PKCE challenge only.
 */
export interface AuthorizationRequest {
  credential_key: string;
  /** The end user whose grant is needed; absent for the shared records. */
  tenant?: string;
  /** The authorization server's URL, with a state bound to the tenant, the key and the run. */
  url: string;
  /** The scopes the URL asks for. */
  scopes: string[];
  /** In an under-scoped case, the scopes the token lacked. */
  missing_scopes?: string[];
  reason: AuthorizationReason;
  /** When the run stops waiting (ISO 8601). */
  expires_at: string;
  /** What the tool said, redacted (why it needs the grant). */
  message: string;
}

/** A tool call waiting for an authorization, as `pendingAuthorizations()` answers it. */
export interface PendingAuthorization extends AuthorizationRequest {
  call_id: string;
  tool: string;
  /** When the wait started (ISO 8601, workflow time). */
  requested_at: string;
}

/** The wake-up a grant sends to every run and chat session of the tenant: `key` may be used now. */
export interface AuthorizationCompletedSignal {
  tenant?: string;
  credential_key: string;
}

/** Input of the fallback check a waiting run makes every minute. */
export interface AuthorizationReadyInput {
  agent: string;
  tenant?: string;
  credential_key: string;
  reason: AuthorizationReason;
  missing_scopes?: string[];
}

export const AUTHORIZATION_COMPLETED_SIGNAL = 'toolkit.authorizationCompleted';
export const PENDING_AUTHORIZATIONS_QUERY = 'toolkit.pendingAuthorizations';

/** How long a run waits for a grant unless `authorization.timeoutMs` says otherwise: 24 h. */
export const DEFAULT_AUTHORIZATION_TIMEOUT_MS = 24 * 60 * 60 * 1000;
/** How often a waiting run looks in the credential store itself (a token stored any other way). */
export const AUTHORIZATION_CHECK_EVERY_MS = 60_000;
