import { PostgresTable, type PostgresConnectionOptions } from '../postgres/table.ts';
import type { Message } from '../common/messages.ts';
import type { MemoryStore, WriteAttempt } from './types.ts';

/** `table` default: `toolkit_messages`. */
export type PostgresMemoryStoreOptions = PostgresConnectionOptions;

/**
 * A memory store in PostgreSQL, for workers on several machines: every worker of a task queue reads
 * and writes the same conversations. Positions are the primary key; writing one again replaces it,
 * so retried activities never duplicate a message, unless a later attempt of the same writer stored it.
 */
export class PostgresMemoryStore implements MemoryStore {
  readonly #db: PostgresTable;
  readonly #table: string;
  readonly #options: PostgresMemoryStoreOptions;

  constructor(options: PostgresMemoryStoreOptions) {
    this.#options = options;
    this.#db = new PostgresTable('PostgresMemoryStore', options, {
      table: 'toolkit_messages',
      max: 5,
      columns:
        'conversation text NOT NULL, seq integer NOT NULL, body jsonb NOT NULL, writer text, attempt integer, ' +
        'PRIMARY KEY (conversation, seq)',
      // Tables made before attempts were recorded get the two columns.
      migrations: [
        'ALTER TABLE {table} ADD COLUMN IF NOT EXISTS writer text, ADD COLUMN IF NOT EXISTS attempt integer',
      ],
    });
    this.#table = this.#db.name;
  }

  async append(
    conversationId: string,
    seq: number,
    messages: Message[],
    attempt?: WriteAttempt,
  ): Promise<void> {
    if (messages.length === 0) return;
    await this.#db.ready();
    const values: unknown[] = [];
    const rows = messages.map((message, i) => {
      values.push(
        conversationId,
        seq + i,
        JSON.stringify(message),
        attempt?.writer ?? null,
        attempt?.attempt ?? null,
      );
      const at = i * 5;
      return `($${at + 1}, $${at + 2}, $${at + 3}::jsonb, $${at + 4}, $${at + 5}::integer)`;
    });
    // A position is replaced unless a later attempt of the same writer stored it (see WriteAttempt).
    const table = this.#table;
    await this.#db.pool.query(
      `INSERT INTO ${table} (conversation, seq, body, writer, attempt) VALUES ${rows.join(', ')}
       ON CONFLICT (conversation, seq) DO UPDATE
         SET body = EXCLUDED.body, writer = EXCLUDED.writer, attempt = EXCLUDED.attempt
         WHERE EXCLUDED.writer IS NULL OR ${table}.writer IS NULL
            OR ${table}.writer <> EXCLUDED.writer OR ${table}.attempt <= EXCLUDED.attempt`,
      values,
    );
  }

  async read(conversationId: string, opts?: { before?: number }): Promise<Message[]> {
    await this.#db.ready();
    const result =
      opts?.before === undefined
        ? await this.#db.pool.query<{ body: Message }>(
            `SELECT body FROM ${this.#table} WHERE conversation = $1 ORDER BY seq`,
            [conversationId],
          )
        : await this.#db.pool.query<{ body: Message }>(
            `SELECT body FROM ${this.#table} WHERE conversation = $1 AND seq < $2 ORDER BY seq`,
            [conversationId, opts.before],
          );
    return result.rows.map((row) => row.body);
  }

  /** The same database (its connection string or pool), for another store beside this one (the usage ledger). */
  sameDatabase(): PostgresConnectionOptions {
    const { table: _, ...connection } = this.#options;
    return connection;
  }

  async close(): Promise<void> {
    await this.#db.close();
  }
}
