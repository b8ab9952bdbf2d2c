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

/**
 * Where long-term memory lives. Small on purpose, so that a vector store (pgvector, an in-process
 * index) can implement it later: write entries, search one resource, delete.
 */
export interface LongTermMemoryStore {
  /** Stores the entries; an entry whose (resource, messageId) is stored already replaces it. */
  upsert(entries: MemoryEntry[]): Promise<void>;
  /** At most `limit` matches within `search.resource`, best first; none when the query has no words. */
  search(search: MemorySearch): Promise<MemoryMatch[]>;
  /** Deletes what `target` names from every index of the store; returns how many messages went. */
  delete(target: MemoryForget): Promise<number>;
  close?(): Promise<void>;
}
