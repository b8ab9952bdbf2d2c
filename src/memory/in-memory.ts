import type { Message } from '../common/messages.ts';
import { mayReplace, type MemoryStore, type WriteAttempt } from './types.ts';

interface Stored {
  body: string;
  attempt: WriteAttempt | undefined;
}

/** A memory store in this process: for tests and for an in-process worker whose server is in memory too. */
export class InMemoryMemoryStore implements MemoryStore {
  readonly #conversations = new Map<string, Map<number, Stored>>();

  async append(
    conversationId: string,
    seq: number,
    messages: Message[],
    attempt?: WriteAttempt,
  ): Promise<void> {
    const conversation = this.#conversations.get(conversationId) ?? new Map<number, Stored>();
    messages.forEach((message, i) => {
      if (!mayReplace(conversation.get(seq + i)?.attempt, attempt)) return;
      conversation.set(seq + i, { body: JSON.stringify(message), attempt });
    });
    this.#conversations.set(conversationId, conversation);
  }

  async read(conversationId: string, opts?: { before?: number }): Promise<Message[]> {
    const conversation = this.#conversations.get(conversationId);
    if (!conversation) return [];
    const before = opts?.before ?? Number.POSITIVE_INFINITY;
    return [...conversation.entries()]
      .filter(([seq]) => seq < before)
      .sort(([a], [b]) => a - b)
      .map(([, stored]) => JSON.parse(stored.body) as Message);
  }
}
