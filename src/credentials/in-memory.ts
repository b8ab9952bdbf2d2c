import { ConfigurationError } from '../errors.ts';
import { CREDENTIAL_TYPES, type CredentialRecord, type CredentialStore } from './types.ts';

const SHARED = '';

/** A credential store in memory, for tests and short-lived processes. Records are copied in and out. */
export class InMemoryCredentialStore implements CredentialStore {
  readonly #tenants = new Map<string, Map<string, CredentialRecord>>();

  async get(name: string, opts?: { tenant?: string }): Promise<CredentialRecord | undefined> {
    const record = this.#tenants.get(opts?.tenant ?? SHARED)?.get(name);
    return record ? structuredClone(record) : undefined;
  }

  async put(record: CredentialRecord, opts?: { tenant?: string }): Promise<void> {
    assertValidRecord(record);
    const tenant = opts?.tenant ?? SHARED;
    const records = this.#tenants.get(tenant) ?? new Map<string, CredentialRecord>();
    records.set(record.name, structuredClone(record));
    this.#tenants.set(tenant, records);
  }

  async delete(name: string, opts?: { tenant?: string }): Promise<boolean> {
    return this.#tenants.get(opts?.tenant ?? SHARED)?.delete(name) ?? false;
  }

  async list(opts?: { tenant?: string }): Promise<string[]> {
    return [...(this.#tenants.get(opts?.tenant ?? SHARED)?.keys() ?? [])].sort();
  }
}

/** Refuses a record a connector could not use, naming the field that is wrong. */
export function assertValidRecord(record: CredentialRecord): void {
  if (typeof record?.name !== 'string' || record.name.length === 0) {
    throw new ConfigurationError(
      "A credential record needs a non-empty `name` (the connector's credential key).",
    );
  }
  if (!CREDENTIAL_TYPES.includes(record.type)) {
    throw new ConfigurationError(
      `Credential "${record.name}" has type ${JSON.stringify(record.type)}; use one of ${CREDENTIAL_TYPES.join(', ')}.`,
    );
  }
  if (typeof record.token !== 'string') {
    throw new ConfigurationError(`Credential "${record.name}" needs a string \`token\` ('' for type none).`);
  }
}
