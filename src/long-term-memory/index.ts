/**
 * `toolkit-agent/memory`: long-term memory across sessions, per resource (a user, a customer).
 * {@link LongTermMemory} remembers messages, recalls them by their words and, with an embedder
 * (an AI SDK embedding model or the offline {@link localEmbedder}), by their meaning, and forgets
 * them on request, over {@link InMemoryLongTermStore} (this process), {@link SqliteLongTermStore}
 * (a file) or {@link PostgresLongTermStore} (a database every worker shares).
 * See docs/memory.md.
 */
export {
  LongTermMemory,
  type EmbeddingSpend,
  type ForgetInput,
  type LongTermMemoryOptions,
  type MemoryMessage,
  type MemoryTime,
  type RecallHit,
  type RecallInput,
  type RecallMode,
  type RememberInput,
} from './long-term-memory.ts';
export type { AiSdkEmbeddingModel, Embedder, EmbedderOption, EmbeddingTokens } from './embedder.ts';
export { findLocalEmbeddingModel, localEmbedder, type LocalEmbedderOptions } from './local-embedder.ts';
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
  MemoryVector,
  MemoryVectorSearch,
} from './types.ts';
