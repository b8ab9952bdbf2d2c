import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openSharedSqlite } from '../fs/sqlite-file.ts';
import { queryWords } from './query-words.ts';
import type { LongTermMemoryStore, MemoryEntry, MemoryForget, MemoryMatch, MemorySearch } from './types.ts';

/**
 * Long-term memory in one SQLite file (`node:sqlite`), searched with FTS5 and ranked by its `bm25()`
 * (https://sqlite.org/fts5.html). The full-text index holds the messages' text only and is kept in
 * step with the `ltm_messages` table by triggers, so a forgotten message leaves no copy in either.
 */
export class SqliteLongTermStore implements LongTermMemoryStore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #upsert: StatementSync;
  readonly #search: StatementSync;
  readonly #delete: StatementSync;

  /** `path`: the file (made if missing, readable by its owner only), or `':memory:'`. */
  constructor(opts: { path: string }) {
    this.path = opts.path;
    this.#db = openSharedSqlite(opts.path);
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS ltm_messages (
        id INTEGER PRIMARY KEY,
        resource TEXT NOT NULL,
        message_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        role TEXT NOT NULL,
        text TEXT NOT NULL,
        at INTEGER NOT NULL,
        UNIQUE (resource, message_id)
      );
      CREATE INDEX IF NOT EXISTS ltm_messages_session ON ltm_messages (resource, session_id);
      CREATE VIRTUAL TABLE IF NOT EXISTS ltm_text USING fts5(
        text, content = 'ltm_messages', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER IF NOT EXISTS ltm_messages_insert AFTER INSERT ON ltm_messages BEGIN
        INSERT INTO ltm_text (rowid, text) VALUES (new.id, new.text);
      END;
      CREATE TRIGGER IF NOT EXISTS ltm_messages_delete AFTER DELETE ON ltm_messages BEGIN
        INSERT INTO ltm_text (ltm_text, rowid, text) VALUES ('delete', old.id, old.text);
      END;
      CREATE TRIGGER IF NOT EXISTS ltm_messages_update AFTER UPDATE ON ltm_messages BEGIN
        INSERT INTO ltm_text (ltm_text, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO ltm_text (rowid, text) VALUES (new.id, new.text);
      END;
    `);
    this.#upsert = this.#db.prepare(
      `INSERT INTO ltm_messages (resource, message_id, session_id, role, text, at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (resource, message_id) DO UPDATE
         SET session_id = excluded.session_id, role = excluded.role, text = excluded.text, at = excluded.at`,
    );
    // bm25() is lower for a better match; the score returned is its negation.
    this.#search = this.#db.prepare(
      `SELECT m.message_id AS messageId, m.session_id AS sessionId, m.text AS text, m.at AS at,
              -bm25(ltm_text) AS score
         FROM ltm_text JOIN ltm_messages m ON m.id = ltm_text.rowid
        WHERE ltm_text MATCH ? AND m.resource = ? AND m.at BETWEEN ? AND ?
        ORDER BY bm25(ltm_text) LIMIT ?`,
    );
    this.#delete = this.#db.prepare(
      `DELETE FROM ltm_messages WHERE resource = ?
         AND (? IS NULL OR session_id = ?) AND (? IS NULL OR message_id = ?)`,
    );
  }

  async upsert(entries: MemoryEntry[]): Promise<void> {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      for (const e of entries) this.#upsert.run(e.resource, e.messageId, e.sessionId, e.role, e.text, e.at);
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  async search(search: MemorySearch): Promise<MemoryMatch[]> {
    const match = ftsQuery(search.query);
    if (!match) return [];
    const rows = this.#search.all(
      match,
      search.resource,
      search.since ?? Number.MIN_SAFE_INTEGER,
      search.until ?? Number.MAX_SAFE_INTEGER,
      search.limit,
    ) as unknown as MemoryMatch[];
    return rows.map((row) => ({ ...row }));
  }

  async delete(target: MemoryForget): Promise<number> {
    const { sessionId = null, messageId = null } = target;
    const { changes } = this.#delete.run(target.resource, sessionId, sessionId, messageId, messageId);
    return Number(changes);
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}

/** The query's words as an FTS5 query matching any of them, each quoted; undefined without words. */
function ftsQuery(query: string): string | undefined {
  const words = queryWords(query);
  return words.length > 0 ? words.map((word) => `"${word}"`).join(' OR ') : undefined;
}
