import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, inject } from 'vitest';
import { PostgresLongTermStore } from '../../src/long-term-memory/postgres.ts';
import { describeLongTermMemory } from '../support/long-term-memory-behaviour.ts';
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
          `SELECT count(*)::int AS n FROM ${table} WHERE words @@ to_tsquery('english', $1)`,
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
