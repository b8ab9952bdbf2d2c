import { PostgresTable, type PostgresConnectionOptions } from '../postgres/table.ts';
import { CONTEXT_WEIGHT, contextsOf } from './message-context.ts';
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

/** `table` default: `toolkit_long_term_memory`. */
export type PostgresLongTermStoreOptions = PostgresConnectionOptions;

/**
 * Long-term memory in PostgreSQL, for workers on several machines, searched with its full-text
 * search (https://www.postgresql.org/docs/current/textsearch.html): each message's words, and at a
 * lower weight those of the message said before it in its session, are a generated `tsvector`
 * column (English configuration) under a GIN index, ranked by `ts_rank`.
 * A message's vector is a `bytea` column of its row (float32, little-endian, with the id of the
 * embedder that made it), compared in this process with the query's. Needs the optional package `pg`.
 */
export class PostgresLongTermStore implements LongTermMemoryStore {
  readonly #db: PostgresTable;

  constructor(options: PostgresLongTermStoreOptions) {
    this.#db = new PostgresTable('PostgresLongTermStore', options, {
      table: 'toolkit_long_term_memory',
      max: 5,
      columns:
        'resource text NOT NULL, message_id text NOT NULL, session_id text NOT NULL, role text NOT NULL, ' +
        'text text NOT NULL, at bigint NOT NULL, PRIMARY KEY (resource, message_id)',
      migrations: [
        'CREATE INDEX IF NOT EXISTS {table}_session ON {table} (resource, session_id)',
        'ALTER TABLE {table} ADD COLUMN IF NOT EXISTS embedder text',
        'ALTER TABLE {table} ADD COLUMN IF NOT EXISTS embedding bytea',
        // The message said before it in its session, whose words are searched with its own (weight D).
        'ALTER TABLE {table} ADD COLUMN IF NOT EXISTS context_id text',
        'ALTER TABLE {table} ADD COLUMN IF NOT EXISTS context text',
        'ALTER TABLE {table} ADD COLUMN IF NOT EXISTS words_in_context tsvector GENERATED ALWAYS AS (' +
          "setweight(to_tsvector('english', text), 'A') || " +
          "setweight(to_tsvector('english', coalesce(context, '')), 'D')) STORED",
        'CREATE INDEX IF NOT EXISTS {table}_words_in_context ON {table} USING gin (words_in_context)',
        // An earlier version's words, without the context.
        'ALTER TABLE {table} DROP COLUMN IF EXISTS words',
      ],
    });
  }

  async upsert(entries: MemoryEntry[]): Promise<void> {
    // One row per (resource, messageId), the last given: a statement may not touch a row twice.
    const rows = [...new Map(entries.map((e) => [`${e.resource}\u0000${e.messageId}`, e])).values()];
    if (rows.length === 0) return;
    await this.#db.ready();
    const table = this.#db.name;
    const contexts = await contextsOf(rows, async (entry, givenIds) => {
      const { rows: found } = await this.#db.pool.query<{ message_id: string; text: string; at: string }>(
        `SELECT message_id, text, at FROM ${table}
          WHERE resource = $1 AND session_id = $2 AND at <= $3 AND message_id <> ALL($4::text[])
          ORDER BY at DESC, message_id DESC LIMIT 1`,
        [entry.resource, entry.sessionId, entry.at, givenIds],
      );
      return found[0] && { messageId: found[0].message_id, text: found[0].text, at: Number(found[0].at) };
    });
    const values: unknown[] = [];
    const tuples = rows.map((e, i) => {
      values.push(e.resource, e.messageId, e.sessionId, e.role, e.text, e.at);
      values.push(contexts[i]?.contextId ?? null, contexts[i]?.context ?? null);
      const at = i * 8;
      return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}::bigint, $${at + 7}, $${at + 8})`;
    });
    // A message whose text changed loses its vector (made from the old text), and the messages said
    // after it search its new words.
    await this.#db.pool.query(
      `WITH stored AS (
         INSERT INTO ${table} (resource, message_id, session_id, role, text, at, context_id, context)
         VALUES ${tuples.join(', ')}
         ON CONFLICT (resource, message_id) DO UPDATE
           SET session_id = EXCLUDED.session_id, role = EXCLUDED.role, text = EXCLUDED.text, at = EXCLUDED.at,
               context_id = EXCLUDED.context_id, context = EXCLUDED.context,
               embedder = CASE WHEN ${table}.text = EXCLUDED.text THEN ${table}.embedder END,
               embedding = CASE WHEN ${table}.text = EXCLUDED.text THEN ${table}.embedding END
         RETURNING resource, message_id, text
       )
       UPDATE ${table} AS t SET context = stored.text FROM stored
        WHERE t.resource = stored.resource AND t.context_id = stored.message_id
          AND t.context IS DISTINCT FROM stored.text
          AND NOT EXISTS (SELECT 1 FROM stored AS s WHERE s.resource = t.resource AND s.message_id = t.message_id)`,
      values,
    );
  }

  async putVectors(resource: string, embedder: string, vectors: MemoryVector[]): Promise<void> {
    if (vectors.length === 0) return;
    await this.#db.ready();
    const values: unknown[] = [resource, embedder];
    const tuples = vectors.map(({ messageId, vector }) => {
      values.push(messageId, Buffer.from(vectorBytes(vector)));
      return `($${values.length - 1}, $${values.length}::bytea)`;
    });
    await this.#db.pool.query(
      `UPDATE ${this.#db.name} AS t SET embedder = $2, embedding = v.embedding
         FROM (VALUES ${tuples.join(', ')}) AS v (message_id, embedding)
        WHERE t.resource = $1 AND t.message_id = v.message_id`,
      values,
    );
  }

  async withoutVectors(resource: string, embedder: string, limit: number): Promise<MemoryEntry[]> {
    await this.#db.ready();
    const { rows } = await this.#db.pool.query<Row & { role: MemoryEntry['role'] }>(
      `SELECT message_id, session_id, role, text, at FROM ${this.#db.name}
        WHERE resource = $1 AND embedder IS DISTINCT FROM $2 LIMIT $3`,
      [resource, embedder, limit],
    );
    return rows.map((row) => ({
      resource,
      messageId: row.message_id,
      sessionId: row.session_id,
      role: row.role,
      text: row.text,
      at: Number(row.at),
    }));
  }

  async searchVectors(search: MemoryVectorSearch): Promise<MemoryMatch[]> {
    await this.#db.ready();
    const { rows } = await this.#db.pool.query<Row & { embedding: Buffer }>(
      `SELECT message_id, session_id, text, at, embedding FROM ${this.#db.name}
        WHERE resource = $1 AND embedder = $2 AND at BETWEEN $3 AND $4`,
      [
        search.resource,
        search.embedder,
        search.since ?? Number.MIN_SAFE_INTEGER,
        search.until ?? Number.MAX_SAFE_INTEGER,
      ],
    );
    return closest(
      search.vector,
      rows.map((row) => ({
        messageId: row.message_id,
        sessionId: row.session_id,
        text: row.text,
        at: Number(row.at),
        vector: vectorFromBytes(row.embedding),
      })),
      search.limit,
    );
  }

  async search(search: MemorySearch): Promise<MemoryMatch[]> {
    // Words of letters and digits only, so none is read as tsquery syntax; any of them may match.
    const words = queryWords(search.query);
    if (words.length === 0) return [];
    await this.#db.ready();
    const { rows } = await this.#db.pool.query<Row & { score: number }>(
      `SELECT message_id, session_id, text, at,
              ts_rank('{${CONTEXT_WEIGHT}, 0.2, 0.4, 1}', words_in_context, query) AS score
         FROM ${this.#db.name}, to_tsquery('english', $2) AS query
        WHERE resource = $1 AND words_in_context @@ query AND at BETWEEN $3 AND $4
        ORDER BY score DESC, at DESC LIMIT $5`,
      [
        search.resource,
        words.join(' | '),
        search.since ?? Number.MIN_SAFE_INTEGER,
        search.until ?? Number.MAX_SAFE_INTEGER,
        search.limit,
      ],
    );
    return rows.map((row) => ({
      messageId: row.message_id,
      sessionId: row.session_id,
      text: row.text,
      at: Number(row.at),
      score: row.score,
    }));
  }

  async delete(target: MemoryForget): Promise<number> {
    await this.#db.ready();
    const table = this.#db.name;
    // The messages said after a forgotten one, and kept, lose their copy of its text.
    const { rows } = await this.#db.pool.query<{ forgotten: string }>(
      `WITH gone AS (
         DELETE FROM ${table} WHERE resource = $1
           AND ($2::text IS NULL OR session_id = $2) AND ($3::text IS NULL OR message_id = $3)
         RETURNING message_id
       ), cleared AS (
         UPDATE ${table} SET context_id = NULL, context = NULL
          WHERE resource = $1 AND context_id IN (SELECT message_id FROM gone)
            AND message_id NOT IN (SELECT message_id FROM gone)
       )
       SELECT count(*) AS forgotten FROM gone`,
      [target.resource, target.sessionId ?? null, target.messageId ?? null],
    );
    return Number(rows[0]!.forgotten);
  }

  /** Ends the pool this store opened (a pool given in the options is yours to end). */
  async close(): Promise<void> {
    await this.#db.close();
  }
}

/** The columns of a row that every search returns (`at` is a bigint, which pg returns as a string). */
interface Row {
  message_id: string;
  session_id: string;
  text: string;
  at: string;
}
