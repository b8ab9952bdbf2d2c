import type { MemoryEntry } from './types.ts';

/**
 * How much the words of the message said before a message count when its words are searched,
 * beside its own (1): a reply is found by the words of the question it answers too. Chosen on the
 * LoCoMo bench's tuning conversations (docs/memory.md, How recall works).
 */
export const CONTEXT_WEIGHT = 0.3;

/** The message said before another in its session, whose words are searched with it at {@link CONTEXT_WEIGHT}. */
export interface MessageContext {
  /** The earlier message's id: forgetting it clears the copy of its text. */
  contextId: string;
  /** The earlier message's text. */
  context: string;
}

/** A stored message that may come before a new one: the latest of its session, by time then id. */
export type EarlierMessage = Pick<MemoryEntry, 'messageId' | 'text' | 'at'>;

/**
 * The context of each entry: the entry before it in `entries` when of the same resource and
 * session, else the latest message `storedBefore` finds for it (the session's latest stored message
 * said at or before it, by time then id, not among `entries`); undefined for the first of a session.
 */
export async function contextsOf(
  entries: MemoryEntry[],
  storedBefore: (entry: MemoryEntry, givenIds: string[]) => Promise<EarlierMessage | undefined>,
): Promise<Array<MessageContext | undefined>> {
  const givenIds = entries.map((entry) => entry.messageId);
  return Promise.all(
    entries.map(async (entry, i) => {
      const before = entries[i - 1];
      const earlier =
        before && before.resource === entry.resource && before.sessionId === entry.sessionId
          ? before
          : await storedBefore(entry, givenIds);
      return earlier && { contextId: earlier.messageId, context: earlier.text };
    }),
  );
}

/** Whether `a` was said after `b`: later in time, or at the same time with a greater id. */
export function saidAfter(a: EarlierMessage, b: EarlierMessage): boolean {
  return a.at > b.at || (a.at === b.at && a.messageId > b.messageId);
}
