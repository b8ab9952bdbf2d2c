import type { Message } from '../common/messages.ts';

/**
 * Where conversations live, so that workflow history holds only references (the spec's
 * `memory_store`). Keyed by conversation id and position; writing a position again replaces it, so a
 * retried activity never duplicates a message.
 */
export interface MemoryStore {
  /** Stores `messages` at positions `seq`, `seq + 1`, ... */
  append(conversationId: string, seq: number, messages: Message[]): Promise<void>;
  /** The conversation in order; only the positions before `before` when it is given. */
  read(conversationId: string, opts?: { before?: number }): Promise<Message[]>;
  close?(): Promise<void>;
}
