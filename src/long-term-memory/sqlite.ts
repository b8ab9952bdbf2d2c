import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openSharedSqlite } from '../fs/sqlite-file.ts';
import { CONTEXT_WEIGHT, contextsOf, type EarlierMessage } from './message-context.ts';
import { queryWords } from './query-words.ts';
import type {
  LongTermMemoryStore,
  MemoryEntry,
  MemoryForget,
  MemoryMatch,
  MemorySearch,
  MemoryVector,
  MemoryVectorSearch,
} from './types.ts';
import { closest, vectorBytes, vectorFromBytes } from './vectors.ts';

/**
 * Long-term memory in one SQLite file (`node:sqlite`), searched with FTS5 and ranked by its `bm25()`
 * (https://sqlite.org/fts5.html). The full-text index holds each message's text and that of the
 * message said before it in its session (at a lower weight), and is kept in step with the
 * `ltm_messages` table by triggers, so a forgotten message leaves no copy in either.
 * Vectors are float32 blobs in `ltm_vectors` (one per message, deleted with it or when its text
 * changes), compared one by one in this process.
 */
export class SqliteLongTermStore implements LongTermMemoryStore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #upsert: StatementSync;
  readonly #search: StatementSync;
  readonly #latestBefore: StatementSync;
  readonly #delete: StatementSync;
  readonly #putVector: StatementSync;
  readonly #withoutVectors: StatementSync;
  readonly #vectors: StatementSync;

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
      CREATE TABLE IF NOT EXISTS ltm_vectors (
        id INTEGER PRIMARY KEY,
        embedder TEXT NOT NULL,
        vector BLOB NOT NULL
      );
      CREATE TRIGGER IF NOT EXISTS ltm_messages_delete_vector AFTER DELETE ON ltm_messages BEGIN
        DELETE FROM ltm_vectors WHERE id = old.id;
      END;
      CREATE TRIGGER IF NOT EXISTS ltm_messages_text_changed AFTER UPDATE OF text ON ltm_messages
        WHEN old.text IS NOT new.text BEGIN
        DELETE FROM ltm_vectors WHERE id = old.id;
      END;
    `);
    this.#indexWordsInContext();
    this.#upsert = this.#db.prepare(
      `INSERT INTO ltm_messages (resource, message_id, session_id, role, text, at, context_id, context)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (resource, message_id) DO UPDATE
         SET session_id = excluded.session_id, role = excluded.role, text = excluded.text, at = excluded.at,
             context_id = excluded.context_id, context = excluded.context`,
    );
    this.#latestBefore = this.#db.prepare(
      `SELECT message_id AS messageId, text, at FROM ltm_messages
        WHERE resource = ? AND session_id = ? AND at <= ? AND message_id NOT IN (SELECT value FROM json_each(?))
        ORDER BY at DESC, message_id DESC LIMIT 1`,
    );
    // bm25() is lower for a better match; the score returned is its negation. The words of the
    // message said before count CONTEXT_WEIGHT.
    this.#search = this.#db.prepare(
      `SELECT m.message_id AS messageId, m.session_id AS sessionId, m.text AS text, m.at AS at,
              -bm25(ltm_words, 1, ${CONTEXT_WEIGHT}) AS score
         FROM ltm_words JOIN ltm_messages m ON m.id = ltm_words.rowid
        WHERE ltm_words MATCH ? AND m.resource = ? AND m.at BETWEEN ? AND ?
        ORDER BY score DESC LIMIT ?`,
    );
    this.#putVector = this.#db.prepare(
      `INSERT INTO ltm_vectors (id, embedder, vector)
         SELECT id, ?, ? FROM ltm_messages WHERE resource = ? AND message_id = ?
       ON CONFLICT (id) DO UPDATE SET embedder = excluded.embedder, vector = excluded.vector`,
    );
    this.#withoutVectors = this.#db.prepare(
      `SELECT m.resource, m.session_id AS sessionId, m.message_id AS messageId, m.role, m.text, m.at
         FROM ltm_messages m LEFT JOIN ltm_vectors v ON v.id = m.id
        WHERE m.resource = ? AND (v.id IS NULL OR v.embedder <> ?) LIMIT ?`,
    );
    this.#vectors = this.#db.prepare(
      `SELECT m.message_id AS messageId, m.session_id AS sessionId, m.text, m.at, v.vector
         FROM ltm_vectors v JOIN ltm_messages m ON m.id = v.id
        WHERE m.resource = ? AND v.embedder = ? AND m.at BETWEEN ? AND ?`,
    );
    this.#delete = this.#db.prepare(
      `DELETE FROM ltm_messages WHERE resource = ?
         AND (? IS NULL OR session_id = ?) AND (? IS NULL OR message_id = ?)`,
    );
  }

  async upsert(entries: MemoryEntry[]): Promise<void> {
    const contexts = await contextsOf(
      entries,
      async (entry, givenIds) =>
        this.#latestBefore.get(entry.resource, entry.sessionId, entry.at, JSON.stringify(givenIds)) as
          EarlierMessage | undefined,
    );
    this.#transaction(() => {
      entries.forEach((e, i) =>
        this.#upsert.run(
          e.resource,
          e.messageId,
          e.sessionId,
          e.role,
          e.text,
          e.at,
          contexts[i]?.contextId ?? null,
          contexts[i]?.context ?? null,
        ),
      );
    });
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

  async putVectors(resource: string, embedder: string, vectors: MemoryVector[]): Promise<void> {
    this.#transaction(() => {
      for (const { messageId, vector } of vectors)
        this.#putVector.run(embedder, vectorBytes(vector), resource, messageId);
    });
  }

  async withoutVectors(resource: string, embedder: string, limit: number): Promise<MemoryEntry[]> {
    return (this.#withoutVectors.all(resource, embedder, limit) as unknown as MemoryEntry[]).map((row) => ({
      ...row,
    }));
  }

  async searchVectors(search: MemoryVectorSearch): Promise<MemoryMatch[]> {
    const rows = this.#vectors.all(
      search.resource,
      search.embedder,
      search.since ?? Number.MIN_SAFE_INTEGER,
      search.until ?? Number.MAX_SAFE_INTEGER,
    ) as unknown as Array<Omit<MemoryMatch, 'score'> & { vector: Uint8Array }>;
    return closest(
      search.vector,
      rows.map(({ vector, ...row }) => ({ ...row, vector: vectorFromBytes(vector) })),
      search.limit,
    );
  }

  async delete(target: MemoryForget): Promise<number> {
    const { sessionId = null, messageId = null } = target;
    const { changes } = this.#delete.run(target.resource, sessionId, sessionId, messageId, messageId);
    return Number(changes);
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  /**
   * The full-text index `ltm_words` of each message's text and the text of the message said before
   * it (`context`), kept in step with `ltm_messages` by triggers. A file of an earlier version, whose
   * index `ltm_text` held the text only, gains the columns and has its index built again.
   */
  #indexWordsInContext(): void {
    const columns = (
      this.#db.prepare('PRAGMA table_info(ltm_messages)').all() as Array<{ name: string }>
    ).map((column) => column.name);
    const hasIndex = this.#db
      .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ltm_words'`)
      .get();
    // Made in one transaction with its columns and triggers: a file that has it is up to date.
    if (hasIndex && columns.includes('context_id')) return;
    this.#transaction(() => {
      if (!columns.includes('context_id'))
        this.#db.exec(
          'ALTER TABLE ltm_messages ADD COLUMN context_id TEXT; ALTER TABLE ltm_messages ADD COLUMN context TEXT;',
        );
      this.#db.exec(`
        DROP TRIGGER IF EXISTS ltm_messages_insert;
        DROP TRIGGER IF EXISTS ltm_messages_delete;
        DROP TRIGGER IF EXISTS ltm_messages_update;
        DROP TABLE IF EXISTS ltm_text;
        CREATE VIRTUAL TABLE IF NOT EXISTS ltm_words USING fts5(
          text, context, content = 'ltm_messages', content_rowid = 'id',
          tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER IF NOT EXISTS ltm_words_insert AFTER INSERT ON ltm_messages BEGIN
          INSERT INTO ltm_words (rowid, text, context) VALUES (new.id, new.text, new.context);
        END;
        CREATE TRIGGER IF NOT EXISTS ltm_words_delete AFTER DELETE ON ltm_messages BEGIN
          INSERT INTO ltm_words (ltm_words, rowid, text, context) VALUES ('delete', old.id, old.text, old.context);
          UPDATE ltm_messages SET context_id = NULL, context = NULL
           WHERE resource = old.resource AND context_id = old.message_id;
        END;
        CREATE TRIGGER IF NOT EXISTS ltm_words_update AFTER UPDATE ON ltm_messages BEGIN
          INSERT INTO ltm_words (ltm_words, rowid, text, context) VALUES ('delete', old.id, old.text, old.context);
          INSERT INTO ltm_words (rowid, text, context) VALUES (new.id, new.text, new.context);
        END;
        CREATE TRIGGER IF NOT EXISTS ltm_words_text_changed AFTER UPDATE OF text ON ltm_messages
          WHEN old.text IS NOT new.text BEGIN
          UPDATE ltm_messages SET context = new.text WHERE resource = new.resource AND context_id = new.message_id;
        END;
      `);
      if (!hasIndex) this.#db.exec(`INSERT INTO ltm_words (ltm_words) VALUES ('rebuild')`);
    });
  }

  #transaction(write: () => void): void {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      write();
      this.#db.exec('COMMIT');
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }
}

/** The query's words as an FTS5 query matching any of them, each quoted; undefined without words. */
function ftsQuery(query: string): string | undefined {
  const words = queryWords(query);
  return words.length > 0 ? words.map((word) => `"${word}"`).join(' OR ') : undefined;
}
