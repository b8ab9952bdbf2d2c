import { createHash, scryptSync } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { KeyRing, type PayloadEncryptionOptions } from '../codec/key-ring.ts';
import { ConfigurationError, CredentialError } from '../errors.ts';
import { PostgresTable, type PostgresConnectionOptions } from '../postgres/table.ts';
import { assertValidRecord } from './in-memory.ts';
import type { CredentialRecord, CredentialStore } from './types.ts';

const SHARED = '';

/** `table` default: `toolkit_credentials`. */
export interface PostgresCredentialStoreOptions extends PostgresConnectionOptions {
  /**
   * Encrypts every record at rest (AES-256-GCM). A passphrase (a key is derived from it with scrypt),
   * or `{ keys, currentKeyId }` of base64 32-byte keys by id to rotate: new writes use the current key,
   * rows under older listed keys keep reading (and {@link PostgresCredentialStore.reencrypt} moves them).
   * Default: `TOOLKIT_CREDENTIALS_KEY`. Required.
   */
  encryptionKey?: string | PayloadEncryptionOptions;
  /** How long `withLock` waits for another process's lock. Default 30 s. */
  lockTimeoutMs?: number;
}

/**
 * Credentials in PostgreSQL, shared by workers on several hosts. Each record is one row per tenant and
 * name whose secret part (the whole record) is AES-256-GCM ciphertext tagged with its key id, bound to
 * its tenant and name so rows cannot be swapped. `withLock` is a PostgreSQL advisory lock, so a token
 * refresh is single-flight across every host.
 *
 * @example
 * const credentialStore = new PostgresCredentialStore({
 *   connectionString: process.env.DATABASE_URL,
 *   encryptionKey: { keys: { c1: process.env.CREDENTIALS_KEY_C1! }, currentKeyId: 'c1' },
 * });
 */
export class PostgresCredentialStore implements CredentialStore {
  readonly #db: PostgresTable;
  readonly #table: string;
  readonly #ring: KeyRing;
  readonly #lockTimeoutMs: number;

  constructor(options: PostgresCredentialStoreOptions) {
    this.#ring = keyRingOf(options?.encryptionKey ?? process.env.TOOLKIT_CREDENTIALS_KEY);
    this.#db = new PostgresTable('PostgresCredentialStore', options, {
      table: 'toolkit_credentials',
      max: 5,
      columns: `tenant text NOT NULL, name text NOT NULL, key_id text NOT NULL, secret bytea NOT NULL,
                updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (tenant, name)`,
    });
    this.#table = this.#db.name;
    this.#lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  }

  async get(name: string, opts?: { tenant?: string }): Promise<CredentialRecord | undefined> {
    await this.#db.ready();
    const tenant = opts?.tenant ?? SHARED;
    const { rows } = await this.#db.pool.query<{ key_id: string; secret: Buffer }>(
      `SELECT key_id, secret FROM ${this.#table} WHERE tenant = $1 AND name = $2`,
      [tenant, name],
    );
    return rows[0] ? this.#open(tenant, name, rows[0]) : undefined;
  }

  async put(record: CredentialRecord, opts?: { tenant?: string }): Promise<void> {
    assertValidRecord(record);
    await this.#db.ready();
    const tenant = opts?.tenant ?? SHARED;
    const { keyId, sealed } = this.#seal(tenant, record);
    await this.#db.pool.query(
      `INSERT INTO ${this.#table} (tenant, name, key_id, secret, updated_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (tenant, name) DO UPDATE SET key_id = EXCLUDED.key_id, secret = EXCLUDED.secret, updated_at = now()`,
      [tenant, record.name, keyId, sealed],
    );
  }

  async delete(name: string, opts?: { tenant?: string }): Promise<boolean> {
    await this.#db.ready();
    const result = await this.#db.pool.query(`DELETE FROM ${this.#table} WHERE tenant = $1 AND name = $2`, [
      opts?.tenant ?? SHARED,
      name,
    ]);
    return (result.rowCount ?? 0) > 0;
  }

  /** Names only: nothing is decrypted. */
  async list(opts?: { tenant?: string }): Promise<string[]> {
    await this.#db.ready();
    const { rows } = await this.#db.pool.query<{ name: string }>(
      `SELECT name FROM ${this.#table} WHERE tenant = $1 ORDER BY name`,
      [opts?.tenant ?? SHARED],
    );
    return rows.map((row) => row.name);
  }

  /**
   * Runs `work` holding a PostgreSQL advisory lock on one credential: callers on every host that
   * shares the database wait their turn. The lock belongs to one pooled session and ends with it,
   * so a crashed holder never leaves it behind.
   */
  async withLock<T>(name: string, opts: { tenant?: string }, work: () => Promise<T>): Promise<T> {
    await this.#db.ready();
    const lockId = `${this.#table}\n${opts.tenant ?? SHARED}\n${name}`;
    const deadline = Date.now() + this.#lockTimeoutMs;
    for (;;) {
      const client = await this.#db.pool.connect();
      let locked: boolean;
      try {
        const { rows } = await client.query<{ locked: boolean }>(
          'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked',
          [lockId],
        );
        locked = rows[0]!.locked;
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
      if (locked) {
        try {
          return await work();
        } finally {
          await client
            .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockId])
            .then(() => client.release())
            .catch((error: unknown) => client.release(error as Error)); // a dropped session frees the lock
        }
      }
      client.release();
      if (Date.now() > deadline) {
        throw new CredentialError(
          `Waited ${this.#lockTimeoutMs} ms for the lock on credential "${name}" (another process is refreshing it). Try again.`,
        );
      }
      await sleep(15 + Math.random() * 35);
    }
  }

  /** Writes every row that is not under the current key again under it; answers how many moved. */
  async reencrypt(): Promise<number> {
    await this.#db.ready();
    const { rows } = await this.#db.pool.query<{
      tenant: string;
      name: string;
      key_id: string;
      secret: Buffer;
    }>(`SELECT tenant, name, key_id, secret FROM ${this.#table} WHERE key_id <> $1`, [
      this.#ring.currentKeyId,
    ]);
    let moved = 0;
    for (const row of rows) {
      const { keyId, sealed } = this.#seal(row.tenant, this.#open(row.tenant, row.name, row));
      const result = await this.#db.pool.query(
        `UPDATE ${this.#table} SET key_id = $1, secret = $2 WHERE tenant = $3 AND name = $4 AND key_id = $5`,
        [keyId, sealed, row.tenant, row.name, row.key_id],
      );
      moved += result.rowCount ?? 0;
    }
    return moved;
  }

  async close(): Promise<void> {
    await this.#db.close();
  }

  #seal(tenant: string, record: CredentialRecord): { keyId: string; sealed: Buffer } {
    return this.#ring.seal(Buffer.from(JSON.stringify(record)), this.#aad(tenant, record.name));
  }

  #open(tenant: string, name: string, row: { key_id: string; secret: Buffer }): CredentialRecord {
    try {
      const plain = this.#ring.open(row.key_id, row.secret, this.#aad(tenant, name));
      return JSON.parse(plain.toString('utf8')) as CredentialRecord;
    } catch (error) {
      const which = tenant ? ` of tenant "${tenant}"` : '';
      throw new CredentialError(
        `Cannot decrypt the credential "${name}"${which} (key "${row.key_id}"): ${(error as Error).message} ` +
          'Give the store the key it was written with (encryptionKey or TOOLKIT_CREDENTIALS_KEY).',
        { cause: error },
      );
    }
  }

  #aad(tenant: string, name: string): Buffer {
    return Buffer.from(`${this.#table}\n${tenant}\n${name}`);
  }
}

/** Derived keys by passphrase: scrypt is slow on purpose. */
const derived = new Map<string, KeyRing>();

/**
 * The key ring of `encryptionKey` (the credential store's, and the OAuth state store's): a passphrase
 * becomes one scrypt-derived key whose id is a fingerprint of it; key objects are used as they are.
 * `owner` names the store in the error when no key is given.
 */
export function keyRingOf(
  key: string | PayloadEncryptionOptions | undefined,
  owner = 'PostgresCredentialStore encrypts every record',
): KeyRing {
  if (key === undefined || key === '') {
    throw new ConfigurationError(
      `${owner}: give it \`encryptionKey\` (a passphrase, or { keys, currentKeyId }) or set TOOLKIT_CREDENTIALS_KEY.`,
    );
  }
  if (typeof key !== 'string') return new KeyRing(key, 'credential encryption');
  let ring = derived.get(key);
  if (!ring) {
    const bytes = scryptSync(key, 'toolkit-agent/postgres-credential-store', 32);
    const id = `p-${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`;
    ring = new KeyRing(
      { keys: { [id]: bytes.toString('base64') }, currentKeyId: id },
      'credential encryption',
    );
    derived.set(key, ring);
  }
  return ring;
}
