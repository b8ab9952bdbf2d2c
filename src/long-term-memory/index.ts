/**
 * `toolkit-agent/memory`: long-term memory across sessions, per resource (a user, a customer).
 * {@link LongTermMemory} remembers messages, recalls them by what they say and forgets them on
 * request, over {@link InMemoryLongTermStore} (this process), {@link SqliteLongTermStore} (a file) or
 * {@link PostgresLongTermStore} (a database every worker shares).
 * See docs/memory.md.
 */
export {
  LongTermMemory,
  type ForgetInput,
  type LongTermMemoryOptions,
  type MemoryMessage,
  type MemoryTime,
  type RecallHit,
  type RecallInput,
  type RememberInput,
} from './long-term-memory.ts';
export { InMemoryLongTermStore } from './in-memory.ts';
export { PostgresLongTermStore, type PostgresLongTermStoreOptions } from './postgres.ts';
export { SqliteLongTermStore } from './sqlite.ts';
export type {
  LongTermMemoryStore,
  MemoryEntry,
  MemoryForget,
  MemoryMatch,
  MemoryRole,
  MemorySearch,
} from './types.ts';
