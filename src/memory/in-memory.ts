import type { Message } from '../common/messages.ts';
import type { MemoryStore } from './types.ts';

/** A memory store in this process: for tests and for an in-process worker whose server is in memory too. */
export class InMemoryMemoryStore implements MemoryStore {
  readonly #conversations = new Map<string, Map<number, string>>();

  async append(conversationId: string, seq: number, messages: Message[]): Promise<void> {
    const conversation = this.#conversations.get(conversationId) ?? new Map<number, string>();
    messages.forEach((message, i) => conversation.set(seq + i, JSON.stringify(message)));
    this.#conversations.set(conversationId, conversation);
  }

  async read(conversationId: string, opts?: { before?: number }): Promise<Message[]> {
    const conversation = this.#conversations.get(conversationId);
    if (!conversation) return [];
    const before = opts?.before ?? Number.POSITIVE_INFINITY;
    return [...conversation.entries()]
      .filter(([seq]) => seq < before)
      .sort(([a], [b]) => a - b)
      .map(([, body]) => JSON.parse(body) as Message);
  }
}
