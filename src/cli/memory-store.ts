import { SqliteMemoryStore } from '../memory/sqlite.ts';
import type { MemoryStore } from '../memory/types.ts';
import { defaultMemoryPath } from '../paths.ts';
import type { ToolkitAgentConfig } from './config-types.ts';

/**
 * The memory store the config's workers use: its `memoryStore`, or the SQLite file that `run`,
 * `chat` and `worker` keep conversations in without one. `close` closes the default file (a
 * config's own store is the config's to close).
 */
export function memoryStoreOf(config: ToolkitAgentConfig | undefined): {
  store: MemoryStore;
  close(): Promise<void>;
} {
  if (config?.memoryStore) return { store: config.memoryStore, close: async () => undefined };
  const store = new SqliteMemoryStore({ path: defaultMemoryPath() });
  return { store, close: async () => store.close() };
}
