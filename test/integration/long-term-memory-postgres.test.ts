import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { LongTermMemory } from '../../src/long-term-memory/long-term-memory.ts';
import { PostgresLongTermStore } from '../../src/long-term-memory/postgres.ts';
import {
  describeLongTermMemory,
  expectReplyFoundByOldQuestion,
} from '../support/long-term-memory-behaviour.ts';
import { describeRecallByMeaning } from '../support/long-term-memory-vectors-behaviour.ts';

const url = inject('postgresUrl');
if (!url) console.warn(`Skipping the PostgreSQL long-term memory tests: ${inject('postgresSkipped')}`);

describe.skipIf(!url)('PostgresLongTermStore on a real PostgreSQL server', () => {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  afterAll(() => pool.end());

  // A table of its own per test, so tests that share resource names never meet.
  describeLongTermMemory('PostgresLongTermStore', async () => {
    const table = `test_ltm_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    return {
      store: new PostgresLongTermStore({ connectionString: url, table }),
      indexedWith: async (words) => {
        const { rows } = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} WHERE words_in_context @@ to_tsquery('english', $1)`,
          [words.join(' | ')],
        );
        return rows[0]!.n;
      },
    };
  });
});

describe.skipIf(!url)('PostgresLongTermStore vectors on a real PostgreSQL server', () => {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  afterAll(() => pool.end());

  describeRecallByMeaning('PostgresLongTermStore', async () => {
    const table = `test_ltm_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    return {
      store: new PostgresLongTermStore({ connectionString: url, table }),
      vectorCount: async () => {
        const { rows } = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${table} WHERE embedding IS NOT NULL`,
        );
        return rows[0]!.n;
      },
    };
  });
});

describe.skipIf(!url)('PostgresLongTermStore and a table of an earlier version', () => {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  afterAll(() => pool.end());

  it('indexes its messages with the words of the message before, keeping them', async () => {
    const table = `test_ltm_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    // The table as the version before the context column made it: its words were the text's only.
    await pool.query(
      `CREATE TABLE ${table} (resource text NOT NULL, message_id text NOT NULL, session_id text NOT NULL,
         role text NOT NULL, text text NOT NULL, at bigint NOT NULL,
         words tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
         embedder text, embedding bytea, PRIMARY KEY (resource, message_id))`,
    );
    await pool.query(`CREATE INDEX ${table}_words ON ${table} USING gin (words)`);
    await pool.query(
      `INSERT INTO ${table} (resource, message_id, session_id, role, text, at)
       VALUES ('ana', 'old', 's1', 'user', 'Which city did your sister move to?', 0)`,
    );
    const memory = new LongTermMemory({ store: new PostgresLongTermStore({ connectionString: url, table }) });
    await expectReplyFoundByOldQuestion(memory);
    const { rows } = await pool.query(
      `SELECT column_name FROM information_schema.columns WHERE table_name = $1 AND column_name = 'words'`,
      [table],
    );
    expect(rows).toEqual([]);
    await memory.close();
  });
});
