import { InMemoryMemoryStore } from '../memory/in-memory.ts';
import { PostgresMemoryStore } from '../memory/postgres.ts';
import { SqliteMemoryStore } from '../memory/sqlite.ts';
import type { MemoryStore } from '../memory/types.ts';
import { defaultMemoryPath } from '../paths.ts';
import { InMemoryUsageStore } from './in-memory.ts';
import { PostgresUsageStore } from './postgres.ts';
import { SqliteUsageStore } from './sqlite.ts';
import type { UsageStore } from './types.ts';

/**
 * The usage ledger that goes with a memory store when none is given: in memory beside an in-memory
 * store, in the same SQLite file beside a SQLite one, in the same PostgreSQL database (table
 * `toolkit_usage`) beside a PostgreSQL one. Any other store (or none): the default SQLite file.
 */
export function usageStoreFollowing(memoryStore: MemoryStore | undefined): UsageStore {
  if (memoryStore instanceof InMemoryMemoryStore) return new InMemoryUsageStore();
  if (memoryStore instanceof SqliteMemoryStore) return new SqliteUsageStore({ path: memoryStore.path });
  if (memoryStore instanceof PostgresMemoryStore) return new PostgresUsageStore(memoryStore.sameDatabase());
  return new SqliteUsageStore({ path: defaultMemoryPath() });
}
