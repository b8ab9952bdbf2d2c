import * as oauth from 'oauth4webapi';
import type { CredentialRecord, CredentialStore } from '../credentials/types.ts';
import { CredentialError, UpstreamError } from '../errors.ts';
import { isSlackRecord, refreshSlackRecord } from './slack-refresh.ts';

/** Refresh a token that expires within this long, before using it. */
export const REFRESH_MARGIN_MS = 60_000;
/** After a refresh failed in a way that may pass, the record is not refreshed again for this long. */
export const REFRESH_BACKOFF_MS = 30_000;
/** `metadata.status` of a record whose refresh token was refused: only a new authorization helps. */
export const NEEDS_REAUTH = 'needs_reauth';
/** Metadata that refresh health writes, removed again by a successful refresh. */
const HEALTH_KEYS = ['status', 'needs_reauth_since', 'refresh_error', 'refresh_retry_at'];

/** Refreshes in flight in this process, by store, tenant and credential: one serves every caller. */
const inFlight = new WeakMap<CredentialStore, Map<string, Promise<CredentialRecord>>>();

export function needsRefresh(record: CredentialRecord, now: number): boolean {
  const expiresAt = record.metadata?.expires_at;
  return typeof expiresAt === 'string' && Date.parse(expiresAt) - REFRESH_MARGIN_MS <= now;
}

/**
 * Throws the "authorize again" error at once for a record marked `needs_reauth` (its refresh token was
 * refused), so connectors fail without a request until a new code exchange replaces the record.
 */
export function assertUsable(record: CredentialRecord): void {
  if (record.metadata?.status !== NEEDS_REAUTH) return;
  const since =
    typeof record.metadata.needs_reauth_since === 'string'
      ? ` since ${record.metadata.needs_reauth_since}`
      : '';
  throw new CredentialError(
    `The credential "${record.name}" needs to be authorized again${since}: its refresh token was refused (invalid_grant). ` +
      REAUTHORIZE,
  );
}

const REAUTHORIZE =
  'Authorize again: loopbackLogin(helper) at a terminal, or helper.buildAuthorizationUrl() then exchangeCode() in your app.';

export function canRefresh(record: CredentialRecord): boolean {
  return (
    record.type === 'oauth2' &&
    Boolean(record.refresh_token) &&
    typeof record.metadata?.token_endpoint === 'string' &&
    typeof record.metadata?.client_id === 'string'
  );
}

/**
 * A fresh access token for an OAuth record (DESIGN.md section 4), single-flight: concurrent callers in
 * this process share one refresh, and the store's lock (when it has one) makes other processes wait
 * and then reuse the stored result. A rotated refresh token is stored before the new access token is
 * used. `invalid_grant` is permanent (authorize again); other failures are retryable.
 */
export function refreshCredential(
  store: CredentialStore,
  name: string,
  tenant: string | undefined,
  now: () => number = Date.now,
  options: { rejectedToken?: string } = {},
): Promise<CredentialRecord> {
  const flights = inFlight.get(store) ?? new Map<string, Promise<CredentialRecord>>();
  inFlight.set(store, flights);
  const id = `${tenant ?? ''}\n${name}`;
  let flight = flights.get(id);
  if (!flight) {
    const work = () => refreshUnderLock(store, name, tenant, now, options.rejectedToken);
    flight = (store.withLock ? store.withLock(name, { tenant }, work) : work()).finally(() =>
      flights.delete(id),
    );
    flights.set(id, flight);
  }
  return flight;
}

/**
 * `rejectedToken`: the service answered 401 to this access token, so refresh even though it has not
 * expired, unless the stored token is already another one (someone refreshed meanwhile).
 */
async function refreshUnderLock(
  store: CredentialStore,
  name: string,
  tenant: string | undefined,
  now: () => number,
  rejectedToken?: string,
): Promise<CredentialRecord> {
  const record = await store.get(name, { tenant });
  if (!record)
    throw new CredentialError(`The credential "${name}" disappeared while it was being refreshed.`);
  assertUsable(record);
  const stale = rejectedToken !== undefined ? record.token === rejectedToken : needsRefresh(record, now());
  if (!stale) return record; // another caller or process refreshed it meanwhile
  if (!canRefresh(record)) {
    throw new CredentialError(
      `The service rejected the credential "${name}" and it cannot be refreshed. Authorize again.`,
    );
  }
  if (isSlackRecord(record)) {
    const rotated = await refreshSlackRecord(record, now);
    await store.put(rotated, { tenant });
    return rotated;
  }
  const metadata = record.metadata ?? {};
  const retryAt = typeof metadata.refresh_retry_at === 'string' ? Date.parse(metadata.refresh_retry_at) : NaN;
  if (retryAt > now()) {
    // A recent refresh failed: no storm against the authorization server from every caller and host.
    throw new UpstreamError(
      `Refreshing "${name}" failed recently (${String(metadata.refresh_error)}); it is tried again after ${String(metadata.refresh_retry_at)}.`,
      { retryable: true, retryAfterMs: retryAt - now() },
    );
  }
  const endpoint = String(metadata.token_endpoint);
  const as: oauth.AuthorizationServer = { issuer: new URL(endpoint).origin, token_endpoint: endpoint };
  const client: oauth.Client = { client_id: String(metadata.client_id) };
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(endpoint).hostname);
  let tokens: oauth.TokenEndpointResponse;
  try {
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(typeof metadata.client_secret === 'string' ? metadata.client_secret : ''),
      record.refresh_token!,
      loopback ? { [oauth.allowInsecureRequests]: true } : {},
    );
    tokens = await oauth.processRefreshTokenResponse(as, client, response);
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError && error.error === 'invalid_grant') {
      const since = new Date(now()).toISOString();
      await markRecord(store, record, tenant, {
        status: NEEDS_REAUTH,
        needs_reauth_since: since,
        refresh_error: 'invalid_grant',
      });
      throw new CredentialError(
        `The refresh token of "${name}" is no longer valid (invalid_grant: revoked, expired, or the app is in testing ` +
          `and its tokens lapsed after 7 days). ${REAUTHORIZE}`,
        { cause: error },
      );
    }
    const detail =
      error instanceof oauth.ResponseBodyError
        ? error.error
        : error instanceof Error && error.cause instanceof Response
          ? `HTTP ${error.cause.status} from the token endpoint`
          : error instanceof Error
            ? error.message
            : String(error);
    const retryAfter = new Date(now() + REFRESH_BACKOFF_MS).toISOString();
    await markRecord(store, record, tenant, { refresh_error: detail, refresh_retry_at: retryAfter });
    throw new UpstreamError(
      `Refreshing "${name}" failed (${detail}); it is tried again after ${retryAfter}.`,
      {
        retryable: true,
        retryAfterMs: REFRESH_BACKOFF_MS,
        cause: error,
      },
    );
  }
  const healthy = Object.fromEntries(Object.entries(metadata).filter(([key]) => !HEALTH_KEYS.includes(key)));
  const refreshed: CredentialRecord = {
    ...record,
    token: tokens.access_token,
    refresh_token: tokens.refresh_token ?? record.refresh_token,
    metadata: {
      ...healthy,
      ...(tokens.expires_in ? { expires_at: new Date(now() + tokens.expires_in * 1000).toISOString() } : {}),
    },
  };
  await store.put(refreshed, { tenant });
  return refreshed;
}

/**
 * Records a refresh failure on the stored record (under the lock, so every host sees it). Best
 * effort: when the store cannot be written, the refresh error itself is still what the caller gets.
 */
async function markRecord(
  store: CredentialStore,
  record: CredentialRecord,
  tenant: string | undefined,
  health: Record<string, string>,
): Promise<void> {
  await store
    .put({ ...record, metadata: { ...record.metadata, ...health } }, { tenant })
    .catch(() => undefined);
}
