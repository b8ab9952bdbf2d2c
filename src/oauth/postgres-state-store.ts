import { PostgresTable, type PostgresConnectionOptions } from '../postgres/table.ts';
import type { OAuthStateEntry, OAuthStateStore } from './state-store.ts';

/** `table` default: `toolkit_oauth_states`. */
export type PostgresOAuthStateStoreOptions = PostgresConnectionOptions;

/**
 * Pending authorization requests in PostgreSQL, for apps on several hosts: the host that builds the
 * authorization URL and the one that receives the callback need not be the same. `take` deletes the
 * row it returns in one statement, so a state works once even when two callbacks race.
 */
export class PostgresOAuthStateStore implements OAuthStateStore {
  readonly #db: PostgresTable;
  readonly #table: string;

  constructor(options: PostgresOAuthStateStoreOptions) {
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
    await this.#db.pool.query(
      `INSERT INTO ${this.#table} (state, entry, expires_at) VALUES ($1, $2::jsonb, $3)
       ON CONFLICT (state) DO UPDATE SET entry = EXCLUDED.entry, expires_at = EXCLUDED.expires_at`,
      [state, JSON.stringify(entry), entry.expires_at],
    );
  }

  async take(state: string): Promise<OAuthStateEntry | undefined> {
    await this.#db.ready();
    const { rows } = await this.#db.pool.query<{ entry: OAuthStateEntry }>(
      `DELETE FROM ${this.#table} WHERE state = $1 RETURNING entry`,
      [state],
    );
    return rows[0]?.entry;
  }

  async close(): Promise<void> {
    await this.#db.close();
  }
}
