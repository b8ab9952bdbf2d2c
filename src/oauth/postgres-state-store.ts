import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import type { KeyRing } from '../codec/key-ring.ts';
import { keyRingOf } from '../credentials/postgres.ts';
import { CredentialError } from '../errors.ts';
import { PostgresTable, type PostgresConnectionOptions } from '../postgres/table.ts';
import type { OAuthStateEntry, OAuthStateStore } from './state-store.ts';

/** `table` default: `toolkit_oauth_states`. */
export interface PostgresOAuthStateStoreOptions extends PostgresConnectionOptions {
  /**
   * Encrypts every pending request at rest (AES-256-GCM), as `PostgresCredentialStore` does: the PKCE
   * verifier is a secret. A passphrase or `{ keys, currentKeyId }`; the credential store's key does.
   * Default: `TOOLKIT_CREDENTIALS_KEY`. Required.
   */
  encryptionKey?: string | PayloadEncryptionOptions;
}

/** What the `entry` column holds: the sealed entry and the key it was sealed with. */
interface SealedEntry {
  key_id: string;
  sealed: string;
}

/**
 * Pending authorization requests in PostgreSQL, for apps on several hosts: the host that builds the
 * authorization URL and the one that receives the callback need not be the same. Each entry is
 * AES-256-GCM ciphertext bound to its state (rows cannot be swapped). `take` deletes the row it
 * returns in one statement, so a state works once even when two callbacks race.
 */
export class PostgresOAuthStateStore implements OAuthStateStore {
  readonly #db: PostgresTable;
  readonly #table: string;
  readonly #ring: KeyRing;

  constructor(options: PostgresOAuthStateStoreOptions) {
    this.#ring = keyRingOf(
      options?.encryptionKey ?? process.env.TOOLKIT_CREDENTIALS_KEY,
      'PostgresOAuthStateStore encrypts every pending request (the PKCE verifier is a secret)',
    );
    this.#db = new PostgresTable('PostgresOAuthStateStore', options, {
      table: 'toolkit_oauth_states',
      max: 3,
      columns: 'state text PRIMARY KEY, entry jsonb NOT NULL, expires_at bigint NOT NULL',
    });
    this.#table = this.#db.name;
  }

  async put(state: string, entry: OAuthStateEntry): Promise<void> {
    await this.#db.ready();
    // Long-expired states go; recently expired ones stay, so a late callback hears "expired", not "unknown".
    await this.#db.pool.query(`DELETE FROM ${this.#table} WHERE expires_at < $1`, [Date.now() - 86_400_000]);
    const { keyId, sealed } = this.#ring.seal(Buffer.from(JSON.stringify(entry)), this.#aad(state));
    const row: SealedEntry = { key_id: keyId, sealed: sealed.toString('base64') };
    await this.#db.pool.query(
      `INSERT INTO ${this.#table} (state, entry, expires_at) VALUES ($1, $2::jsonb, $3)
       ON CONFLICT (state) DO UPDATE SET entry = EXCLUDED.entry, expires_at = EXCLUDED.expires_at`,
      [state, JSON.stringify(row), entry.expires_at],
    );
  }

  async take(state: string): Promise<OAuthStateEntry | undefined> {
    await this.#db.ready();
    const { rows } = await this.#db.pool.query<{ entry: SealedEntry }>(
      `DELETE FROM ${this.#table} WHERE state = $1 RETURNING entry`,
      [state],
    );
    const row = rows[0]?.entry;
    if (!row) return undefined;
    if (typeof row.sealed !== 'string' || typeof row.key_id !== 'string') {
      throw new CredentialError(
        'This OAuth state was stored without encryption (by an earlier version); it was removed. Sign in again.',
      );
    }
    try {
      const plain = this.#ring.open(row.key_id, Buffer.from(row.sealed, 'base64'), this.#aad(state));
      return JSON.parse(plain.toString('utf8')) as OAuthStateEntry;
    } catch (error) {
      throw new CredentialError(
        `Cannot decrypt this OAuth state (key "${row.key_id}"): ${(error as Error).message} ` +
          'Give every host the same encryptionKey (or TOOLKIT_CREDENTIALS_KEY), then sign in again.',
        { cause: error },
      );
    }
  }

  async close(): Promise<void> {
    await this.#db.close();
  }

  #aad(state: string): Buffer {
    return Buffer.from(`${this.#table}\n${state}`);
  }
}
