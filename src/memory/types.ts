import type { Message } from '../common/messages.ts';

/**
 * Who writes: one activity of one workflow run (`writer`, e.g. `<runId>/<activityId>`) in one of its
 * attempts. A write from an older attempt of the same activity than the one stored is refused, so
 * an attempt that froze (SIGSTOP, a GC or VM pause, a lost connection), was replaced by a retry and
 * woke later cannot overwrite what the accepted attempt stored.
 */
export interface WriteAttempt {
  writer: string;
  attempt: number;
}

/**
 * Where conversations live, so that workflow history holds only references (the spec's
 * `memory_store`). Keyed by conversation id and position; writing a position again replaces it, so a
 * retried activity never duplicates a message, unless the position was written by a later attempt
 * of the same activity (see {@link WriteAttempt}).
 */
export interface MemoryStore {
  /**
   * Stores `messages` at positions `seq`, `seq + 1`, ... With `attempt`, positions a later attempt
   * of the same writer already stored are left as they are.
   */
  append(conversationId: string, seq: number, messages: Message[], attempt?: WriteAttempt): Promise<void>;
  /** The conversation in order; only the positions before `before` when it is given. */
  read(conversationId: string, opts?: { before?: number }): Promise<Message[]>;
  close?(): Promise<void>;
}

/** Whether a write by `incoming` may replace a position stored by `stored` (true when either is unknown). */
export function mayReplace(stored: WriteAttempt | undefined, incoming: WriteAttempt | undefined): boolean {
  return !stored || !incoming || stored.writer !== incoming.writer || stored.attempt <= incoming.attempt;
}
