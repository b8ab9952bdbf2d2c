import type { CredentialStore } from '../credentials/types.ts';
import { CredentialError } from '../errors.ts';

/** What an A2A client gave to authenticate the notifications it receives: secrets, kept in the credential store. */
export interface PushSecrets {
  token?: string;
  authentication?: { scheme: string; credentials: string };
}

/** The credential record of one push configuration's secrets (per tenant). */
export function pushCredentialKey(taskId: string, configId: string): string {
  return `a2a-push:${taskId}:${configId}`;
}

export async function writePushSecrets(
  store: CredentialStore,
  key: string,
  secrets: PushSecrets,
  tenant: string | undefined,
): Promise<void> {
  await store.put(
    { name: key, type: 'bearer', token: JSON.stringify(secrets), metadata: { kind: 'a2a-push' } },
    tenant === undefined ? {} : { tenant },
  );
}

/** Read inside the sending activity only. */
export async function readPushSecrets(
  store: CredentialStore | undefined,
  key: string,
  tenant: string | undefined,
): Promise<PushSecrets> {
  const record = await store?.get(key, tenant === undefined ? {} : { tenant });
  if (!record) {
    throw new CredentialError(
      `The secrets of A2A push configuration "${key}" are not in the agent's credential store.`,
    );
  }
  return JSON.parse(record.token) as PushSecrets;
}
