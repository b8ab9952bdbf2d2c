/** How `custom_api` authenticates; `oauth2` for records made by the OAuth helpers. */
export type CredentialType = 'oauth2' | 'bearer' | 'basic' | 'api_key' | 'none';

/**
 * One credential, stored under the connector's credential key (`name`). Data keeps the spec's
 * snake_case because it is stored as JSON.
 */
export interface CredentialRecord {
  name: string;
  type: CredentialType;
  token: string;
  refresh_token?: string;
  metadata?: Record<string, unknown>;
}

/** Every credential store. `tenant` scopes records per end user; without it the shared records apply. */
export interface CredentialStore {
  get(name: string, opts?: { tenant?: string }): Promise<CredentialRecord | undefined>;
  put(record: CredentialRecord, opts?: { tenant?: string }): Promise<void>;
  delete(name: string, opts?: { tenant?: string }): Promise<boolean>;
  /** Names only, never secrets. */
  list(opts?: { tenant?: string }): Promise<string[]>;
  /**
   * Runs `work` while holding an exclusive lock on one credential, across every process that shares
   * the store (token refresh uses it so that one refresh serves all callers). Optional: without it,
   * refreshes are single-flight within a process only.
   */
  withLock?<T>(name: string, opts: { tenant?: string }, work: () => Promise<T>): Promise<T>;
}

export const CREDENTIAL_TYPES: readonly CredentialType[] = ['oauth2', 'bearer', 'basic', 'api_key', 'none'];

/** Metadata keys whose values are secrets, wherever they appear in a record. */
const SECRET_METADATA_KEYS = new Set([
  'client_secret',
  'password',
  'api_key',
  'secret',
  'user_token',
  'user_refresh_token',
]);
const SECRET_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key|cookie)$/i;

/** Every secret value in a record: token, refresh token, client secret, auth-bearing default headers. */
export function secretValuesOf(record: CredentialRecord): string[] {
  const values = [record.token, record.refresh_token ?? ''];
  const metadata = record.metadata ?? {};
  for (const [key, value] of Object.entries(metadata)) {
    if (SECRET_METADATA_KEYS.has(key) && typeof value === 'string') values.push(value);
  }
  const headers = metadata.default_headers;
  if (headers && typeof headers === 'object') {
    for (const [key, value] of Object.entries(headers)) {
      if (SECRET_HEADER.test(key) && typeof value === 'string')
        values.push(value, value.replace(/^\S+\s+/, ''));
    }
  }
  return values.filter((value) => value.length > 0);
}
