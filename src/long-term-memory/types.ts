/**
 * One remembered message as a store keeps it. `messageId` is unique within its `resource`: storing
 * the same id again replaces the message.
 */
export interface MemoryEntry {
  /** Whose memory: a user, a customer. Nothing is ever recalled across resources. */
  resource: string;
  sessionId: string;
  messageId: string;
  role: MemoryRole;
  /** What is searched and returned. */
  text: string;
  /** When it was said, in milliseconds since the epoch. */
  at: number;
}

/** The roles a remembered message may have. */
export type MemoryRole = 'user' | 'assistant' | 'system' | 'tool';

/** A search of one resource's memory; `since` and `until` (inclusive, epoch ms) bound `at`. */
export interface MemorySearch {
  resource: string;
  query: string;
  limit: number;
  since?: number;
  until?: number;
}

/** A message found by a search, best first; a higher `score` is a better match. */
export interface MemoryMatch {
  messageId: string;
  sessionId: string;
  text: string;
  at: number;
  score: number;
}

/**
 * What to forget from one resource's memory: all of it, one session (`sessionId`), one message
 * (`messageId`), or one message only if it belongs to that session (both).
 */
export interface MemoryForget {
  resource: string;
  sessionId?: string;
  messageId?: string;
}

/** The vector of one stored message. */
export interface MemoryVector {
  messageId: string;
  vector: Float32Array;
}

/** A search of one resource's vectors made by the embedder `embedder`; `since`, `until` as in {@link MemorySearch}. */
export interface MemoryVectorSearch {
  resource: string;
  embedder: string;
  vector: Float32Array;
  limit: number;
  since?: number;
  until?: number;
}

/**
 * Where long-term memory lives: write entries, search one resource by words, delete. A store that
 * also keeps vectors (the three of toolkit-agent do) implements the three optional methods, which
 * `LongTermMemory` needs when it has an embedder.
 */
export interface LongTermMemoryStore {
  /**
   * Stores the entries; an entry whose (resource, messageId) is stored already replaces it (and
   * drops its vector when its text changed).
   */
  upsert(entries: MemoryEntry[]): Promise<void>;
  /** At most `limit` matches within `search.resource`, best first; none when the query has no words. */
  search(search: MemorySearch): Promise<MemoryMatch[]>;
  /** Deletes what `target` names (vectors included) from every index of the store; returns how many messages went. */
  delete(target: MemoryForget): Promise<number>;
  /** Stores vectors that `embedder` made for stored messages of `resource`, replacing theirs; unknown ids are skipped. */
  putVectors?(resource: string, embedder: string, vectors: MemoryVector[]): Promise<void>;
  /** At most `limit` messages of `resource` without a vector made by `embedder` (none yet, or another embedder's). */
  withoutVectors?(resource: string, embedder: string, limit: number): Promise<MemoryEntry[]>;
  /** At most `limit` messages of `search.resource` closest to `search.vector` (cosine similarity as `score`), best first. */
  searchVectors?(search: MemoryVectorSearch): Promise<MemoryMatch[]>;
  close?(): Promise<void>;
}
