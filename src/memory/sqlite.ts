import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Message } from '../common/messages.ts';
import type { MemoryStore } from './types.ts';

/**
 * A memory store in one SQLite file (`node:sqlite`), shared by the worker processes of one machine:
 * a worker that restarts after a crash finds the conversation where the last one left it.
 */
export class SqliteMemoryStore implements MemoryStore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #insert: StatementSync;
  readonly #readAll: StatementSync;
  readonly #readBefore: StatementSync;

  constructor(opts: { path: string }) {
    this.path = opts.path;
    if (opts.path !== ':memory:') mkdirSync(dirname(opts.path), { recursive: true });
    this.#db = new DatabaseSync(opts.path);
    this.#db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA busy_timeout = 5000;
      CREATE TABLE IF NOT EXISTS messages (
        conversation TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (conversation, seq)
      ) WITHOUT ROWID;
    `);
    this.#insert = this.#db.prepare(
      'INSERT OR REPLACE INTO messages (conversation, seq, body) VALUES (?, ?, ?)',
    );
    this.#readAll = this.#db.prepare('SELECT body FROM messages WHERE conversation = ? ORDER BY seq');
    this.#readBefore = this.#db.prepare(
      'SELECT body FROM messages WHERE conversation = ? AND seq < ? ORDER BY seq',
    );
  }

  async append(conversationId: string, seq: number, messages: Message[]): Promise<void> {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      messages.forEach((message, i) => this.#insert.run(conversationId, seq + i, JSON.stringify(message)));
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  async read(conversationId: string, opts?: { before?: number }): Promise<Message[]> {
    const rows = (
      opts?.before === undefined
        ? this.#readAll.all(conversationId)
        : this.#readBefore.all(conversationId, opts.before)
    ) as Array<{ body: string }>;
    return rows.map((row) => JSON.parse(row.body) as Message);
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}
