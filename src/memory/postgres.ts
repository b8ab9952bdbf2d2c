import pg from 'pg';
import type { Message } from '../common/messages.ts';
import type { MemoryStore } from './types.ts';

export interface PostgresMemoryStoreOptions {
  /** e.g. `postgres://user:password@db.internal:5432/agents`. */
  connectionString?: string;
  /** A pool you already have; closed by you, not by `close()`. */
  pool?: pg.Pool;
  /** Table name. Default `toolkit_messages`; created on first use. */
  table?: string;
}

/**
 * A memory store in PostgreSQL, for workers on several machines: every worker of a task queue reads
 * and writes the same conversations. Positions are the primary key; writing one again replaces it,
 * so retried activities never duplicate a message.
 */
export class PostgresMemoryStore implements MemoryStore {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #table: string;
  #ready: Promise<void> | undefined;

  constructor(options: PostgresMemoryStoreOptions) {
    if (!options.pool && !options.connectionString)
      throw new TypeError('PostgresMemoryStore needs a connectionString or a pool.');
    this.#pool = options.pool ?? new pg.Pool({ connectionString: options.connectionString, max: 5 });
    this.#ownsPool = !options.pool;
    this.#table = options.table ?? 'toolkit_messages';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(this.#table))
      throw new TypeError(`Invalid table name ${JSON.stringify(this.#table)}.`);
  }

  async append(conversationId: string, seq: number, messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    await this.#init();
    const values: unknown[] = [];
    const rows = messages.map((message, i) => {
      values.push(conversationId, seq + i, JSON.stringify(message));
      return `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 3}::jsonb)`;
    });
    await this.#pool.query(
      `INSERT INTO ${this.#table} (conversation, seq, body) VALUES ${rows.join(', ')}
       ON CONFLICT (conversation, seq) DO UPDATE SET body = EXCLUDED.body`,
      values,
    );
  }

  async read(conversationId: string, opts?: { before?: number }): Promise<Message[]> {
    await this.#init();
    const result =
      opts?.before === undefined
        ? await this.#pool.query<{ body: Message }>(
            `SELECT body FROM ${this.#table} WHERE conversation = $1 ORDER BY seq`,
            [conversationId],
          )
        : await this.#pool.query<{ body: Message }>(
            `SELECT body FROM ${this.#table} WHERE conversation = $1 AND seq < $2 ORDER BY seq`,
            [conversationId, opts.before],
          );
    return result.rows.map((row) => row.body);
  }

  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }

  #init(): Promise<void> {
    this.#ready ??= this.#pool
      .query(
        `CREATE TABLE IF NOT EXISTS ${this.#table} (
           conversation text NOT NULL,
           seq integer NOT NULL,
           body jsonb NOT NULL,
           PRIMARY KEY (conversation, seq)
         )`,
      )
      .then(() => undefined)
      .catch((error: unknown) => {
        // Two workers creating the table at once: the loser sees a duplicate, which is fine.
        if (['23505', '42P07'].includes((error as { code?: string }).code ?? '')) return;
        this.#ready = undefined;
        throw error;
      });
    return this.#ready;
  }
}
