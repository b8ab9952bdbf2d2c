import type { AuthorizationRequest } from '../common/authorization.ts';
import type { CredentialStore } from '../credentials/types.ts';
import type { AuthorizationNeed } from '../errors.ts';
import { NEEDS_REAUTH } from '../oauth/refresh.ts';
import type { RegisteredAuthorization } from './options.ts';

/** Where the request comes from: the run, its tenant, and the store the tool reads. */
export interface AuthorizationRequestContext {
  tenant: string | undefined;
  workflowId: string;
  credentialStore: CredentialStore | undefined;
  /** What the tool said (already redacted). */
  message: string;
  now?: number;
}

/**
 * The request to put before the user, or undefined when no helper serves the key: the helper's URL
 * with a state bound to the tenant, the key and the run, valid as long as the run waits. For an
 * under-scoped token it asks only for the scopes the record was granted plus the missing ones
 * (Google's `include_granted_scopes` keeps the rest).
 */
export async function requestAuthorization(
  settings: RegisteredAuthorization | undefined,
  need: AuthorizationNeed,
  context: AuthorizationRequestContext,
): Promise<AuthorizationRequest | undefined> {
  const helper = settings?.helpers.get(need.credentialKey);
  if (!settings || !helper) return undefined;
  const now = context.now ?? Date.now();
  let scopes = helper.defaultScopes;
  let missing: string[] | undefined;
  if (need.reason === 'needs_reauth') await markNeedsReauth(context, need.credentialKey, now);
  if (need.reason === 'insufficient_scope') {
    const record = await context.credentialStore?.get(need.credentialKey, { tenant: context.tenant });
    const granted = Array.isArray(record?.metadata?.scopes) ? record.metadata.scopes.map(String) : [];
    const wanted = need.scopes?.length ? need.scopes : helper.defaultScopes;
    missing = wanted.filter((scope) => !granted.includes(scope));
    if (missing.length === 0) missing = wanted;
    scopes = [...new Set([...granted, ...missing])];
  }
  const url = await helper.buildAuthorizationUrl({
    credentialKey: need.credentialKey,
    workflowId: context.workflowId,
    scopes,
    ttlMs: settings.timeoutMs,
    ...(context.tenant !== undefined ? { tenant: context.tenant } : {}),
  });
  return {
    credential_key: need.credentialKey,
    ...(context.tenant !== undefined ? { tenant: context.tenant } : {}),
    url,
    scopes,
    ...(missing ? { missing_scopes: missing } : {}),
    reason: need.reason,
    expires_at: new Date(now + settings.timeoutMs).toISOString(),
    message: context.message,
  };
}

/**
 * A token the service refuses and nothing can refresh: the record is marked `needs_reauth`, so the
 * store itself says a grant is due (credential status, the waiting run's fallback check).
 */
async function markNeedsReauth(
  context: AuthorizationRequestContext,
  key: string,
  now: number,
): Promise<void> {
  const store = context.credentialStore;
  const record = await store?.get(key, { tenant: context.tenant });
  if (!store || !record || record.metadata?.status === NEEDS_REAUTH) return;
  await store.put(
    {
      ...record,
      metadata: { ...record.metadata, status: NEEDS_REAUTH, needs_reauth_since: new Date(now).toISOString() },
    },
    { tenant: context.tenant },
  );
}
