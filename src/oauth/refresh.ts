import type { CredentialRecord, CredentialStore } from '../credentials/types.ts';
import { CredentialError, UpstreamError } from '../errors.ts';
import { RefreshGrantError, type RefreshGrant } from './refresh-grant.ts';
import { isSlackRecord, refreshSlackRecord } from './slack-refresh.ts';
import { refreshOAuthRecord } from './token-refresh-grant.ts';

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
  const { needs_reauth_since: since, refresh_error: refusal } = record.metadata;
  throw new CredentialError(
    `The credential "${record.name}" needs to be authorized again${typeof since === 'string' ? ` since ${since}` : ''}: ` +
      `its refresh token was refused (${typeof refusal === 'string' ? refusal : 'invalid_grant'}). ${REAUTHORIZE}`,
    { authorization: { credentialKey: record.name, reason: 'needs_reauth' } },
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
 * A fresh access token for an OAuth record (docs/credentials-and-oauth.md), single-flight: concurrent callers in
 * this process share one refresh, and the store's lock (when it has one) makes other processes wait
 * and then reuse the stored result. A rotated refresh token is stored before the new access token is
 * used. A refused refresh token (`invalid_grant`, Slack's `invalid_refresh_token`) marks the record
 * `needs_reauth` (authorize again); any other failure is retryable, after {@link REFRESH_BACKOFF_MS}.
 * The request itself is the standard refresh grant, or Slack's token rotation for a Slack record.
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
      { authorization: { credentialKey: name, reason: 'needs_reauth' } },
    );
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
  const grant: RefreshGrant = isSlackRecord(record) ? refreshSlackRecord : refreshOAuthRecord;
  let granted: CredentialRecord;
  try {
    granted = await grant(record, now);
  } catch (error) {
    // Tokens rotated before the failure are kept: the refresh tokens they replaced are spent.
    const current = (error instanceof RefreshGrantError && error.rotated) || record;
    if (error instanceof RefreshGrantError && error.permanent) {
      await markRecord(store, current, tenant, {
        status: NEEDS_REAUTH,
        needs_reauth_since: new Date(now()).toISOString(),
        refresh_error: error.error,
      });
      throw new CredentialError(
        `The refresh token of "${name}" is no longer valid (${error.message}). ${REAUTHORIZE}`,
        { cause: error, authorization: { credentialKey: name, reason: 'needs_reauth' } },
      );
    }
    const detail = error instanceof Error ? error.message : String(error);
    const retryAfter = new Date(now() + REFRESH_BACKOFF_MS).toISOString();
    await markRecord(store, current, tenant, { refresh_error: detail, refresh_retry_at: retryAfter });
    throw new UpstreamError(
      `Refreshing "${name}" failed (${detail}); it is tried again after ${retryAfter}.`,
      {
        retryable: true,
        retryAfterMs: REFRESH_BACKOFF_MS,
        cause: error,
      },
    );
  }
  const healthy = Object.entries(granted.metadata ?? {}).filter(([key]) => !HEALTH_KEYS.includes(key));
  const refreshed: CredentialRecord = { ...granted, metadata: Object.fromEntries(healthy) };
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
