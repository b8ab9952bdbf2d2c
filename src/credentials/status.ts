import type { CredentialStore, CredentialType } from './types.ts';

/** What an admin page may show of a credential: its state, never a secret. */
export interface CredentialStatus {
  name: string;
  type: CredentialType;
  /**
   * `needs_reauth`: the refresh token was refused, authorize again. `refresh_failing`: the last refresh
   * failed in a way that may pass and is retried after `refresh_retry_at`. `expired`: past
   * `expires_at` with no way to refresh. Otherwise `ok`.
   */
  status: 'ok' | 'needs_reauth' | 'refresh_failing' | 'expired';
  expires_at?: string;
  scopes?: string[];
  refresh_error?: string;
  refresh_retry_at?: string;
  needs_reauth_since?: string;
}

/** The status of every credential of a tenant (the shared records without one), without secrets. */
export async function listCredentialStatus(
  store: CredentialStore,
  opts: { tenant?: string; now?: number } = {},
): Promise<CredentialStatus[]> {
  const now = opts.now ?? Date.now();
  const statuses: CredentialStatus[] = [];
  for (const name of await store.list({ tenant: opts.tenant })) {
    const record = await store.get(name, { tenant: opts.tenant });
    if (!record) continue; // deleted meanwhile
    const metadata = record.metadata ?? {};
    const text = (key: string) => (typeof metadata[key] === 'string' ? metadata[key] : undefined);
    const expiresAt = text('expires_at');
    const retryAt = text('refresh_retry_at');
    const status: CredentialStatus['status'] =
      metadata.status === 'needs_reauth'
        ? 'needs_reauth'
        : retryAt && Date.parse(retryAt) > now
          ? 'refresh_failing'
          : expiresAt && Date.parse(expiresAt) <= now && !record.refresh_token
            ? 'expired'
            : 'ok';
    statuses.push({
      name,
      type: record.type,
      status,
      ...(expiresAt ? { expires_at: expiresAt } : {}),
      ...(Array.isArray(metadata.scopes) ? { scopes: metadata.scopes.map(String) } : {}),
      ...(text('refresh_error') ? { refresh_error: text('refresh_error') } : {}),
      ...(retryAt ? { refresh_retry_at: retryAt } : {}),
      ...(text('needs_reauth_since') ? { needs_reauth_since: text('needs_reauth_since') } : {}),
    });
  }
  return statuses;
}
