import { PostgresTable, type PostgresConnectionOptions } from '../postgres/table.ts';
import type { Message } from '../common/messages.ts';
import type { MemoryStore } from './types.ts';

/** `table` default: `toolkit_messages`. */
export type PostgresMemoryStoreOptions = PostgresConnectionOptions;

/**
 * A memory store in PostgreSQL, for workers on several machines: every worker of a task queue reads
 * and writes the same conversations. Positions are the primary key; writing one again replaces it,
 * so retried activities never duplicate a message.
 */
export class PostgresMemoryStore implements MemoryStore {
  readonly #db: PostgresTable;
  readonly #table: string;

  constructor(options: PostgresMemoryStoreOptions) {
    this.#db = new PostgresTable('PostgresMemoryStore', options, {
      table: 'toolkit_messages',
      max: 5,
      columns:
        'conversation text NOT NULL, seq integer NOT NULL, body jsonb NOT NULL, PRIMARY KEY (conversation, seq)',
    });
    this.#table = this.#db.name;
  }

  async append(conversationId: string, seq: number, messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    await this.#db.ready();
    const values: unknown[] = [];
    const rows = messages.map((message, i) => {
      values.push(conversationId, seq + i, JSON.stringify(message));
      return `($${i * 3 + 1}, $${i * 3 + 2}, $${i * 3 + 3}::jsonb)`;
    });
    await this.#db.pool.query(
      `INSERT INTO ${this.#table} (conversation, seq, body) VALUES ${rows.join(', ')}
       ON CONFLICT (conversation, seq) DO UPDATE SET body = EXCLUDED.body`,
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

  async close(): Promise<void> {
    await this.#db.close();
  }
}
