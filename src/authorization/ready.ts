import type { AuthorizationReadyInput } from '../common/authorization.ts';
import type { CredentialStore } from '../credentials/types.ts';
import { NEEDS_REAUTH } from '../oauth/refresh.ts';

/**
 * Whether a waiting call may run again, judged from the store alone (the fallback of a waiting run,
 * every minute): a record exists, is not marked `needs_reauth`, and, when scopes were missing, now
 * lists them. Reads no secret into the answer.
 */
export async function authorizationReady(
  store: CredentialStore | undefined,
  input: AuthorizationReadyInput,
): Promise<boolean> {
  const record = await store?.get(input.credential_key, { tenant: input.tenant });
  if (!record) return false;
  if (record.metadata?.status === NEEDS_REAUTH) return false;
  if (input.reason === 'insufficient_scope' && input.missing_scopes?.length) {
    const granted = record.metadata?.scopes;
    if (Array.isArray(granted)) {
      const names = granted.map(String);
      return input.missing_scopes.every((scope) => names.includes(scope));
    }
  }
  return true;
}
