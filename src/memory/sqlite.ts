import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { Message } from '../common/messages.ts';
import { openSharedSqlite } from '../fs/sqlite-file.ts';
import type { MemoryStore, WriteAttempt } from './types.ts';

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
    // Whole conversations: a file (and folder) only the owner can read.
    this.#db = openSharedSqlite(opts.path);
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS messages (
        conversation TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        writer TEXT,
        attempt INTEGER,
        PRIMARY KEY (conversation, seq)
      ) WITHOUT ROWID;
    `);
    this.#addAttemptColumns();
    // A position is replaced unless a later attempt of the same writer stored it (see WriteAttempt).
    this.#insert = this.#db.prepare(
      `INSERT INTO messages (conversation, seq, body, writer, attempt) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (conversation, seq) DO UPDATE
         SET body = excluded.body, writer = excluded.writer, attempt = excluded.attempt
         WHERE excluded.writer IS NULL OR messages.writer IS NULL
            OR messages.writer <> excluded.writer OR messages.attempt <= excluded.attempt`,
    );
    this.#readAll = this.#db.prepare('SELECT body FROM messages WHERE conversation = ? ORDER BY seq');
    this.#readBefore = this.#db.prepare(
      'SELECT body FROM messages WHERE conversation = ? AND seq < ? ORDER BY seq',
    );
  }

  async append(
    conversationId: string,
    seq: number,
    messages: Message[],
    attempt?: WriteAttempt,
  ): Promise<void> {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      messages.forEach((message, i) =>
        this.#insert.run(
          conversationId,
          seq + i,
          JSON.stringify(message),
          attempt?.writer ?? null,
          attempt?.attempt ?? null,
        ),
      );
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

  /** Files made before attempts were recorded get the two columns (their rows have no writer). */
  #addAttemptColumns(): void {
    const columns = (this.#db.prepare('PRAGMA table_info(messages)').all() as Array<{ name: string }>).map(
      (column) => column.name,
    );
    if (!columns.includes('writer')) this.#db.exec('ALTER TABLE messages ADD COLUMN writer TEXT');
    if (!columns.includes('attempt')) this.#db.exec('ALTER TABLE messages ADD COLUMN attempt INTEGER');
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}
