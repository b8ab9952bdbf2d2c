import MiniSearch from 'minisearch';
import { queryWords } from './query-words.ts';
import type { LongTermMemoryStore, MemoryEntry, MemoryForget, MemoryMatch, MemorySearch } from './types.ts';

/** One resource's memory: its own index (BM25 by MiniSearch) and its entries by message id. */
interface ResourceMemory {
  index: MiniSearch<MemoryEntry>;
  entries: Map<string, MemoryEntry>;
}

/**
 * Long-term memory in this process, searched with BM25 (https://lucaong.github.io/minisearch/):
 * for tests and single-process tools; gone when the process ends. Each resource has an index of its
 * own, so no search can reach another resource's messages.
 */
export class InMemoryLongTermStore implements LongTermMemoryStore {
  readonly #resources = new Map<string, ResourceMemory>();

  async upsert(entries: MemoryEntry[]): Promise<void> {
    for (const entry of entries) {
      const memory = this.#resourceMemory(entry.resource);
      if (memory.entries.has(entry.messageId)) memory.index.discard(entry.messageId);
      memory.entries.set(entry.messageId, { ...entry });
      memory.index.add(entry);
    }
  }

  async search(search: MemorySearch): Promise<MemoryMatch[]> {
    const memory = this.#resources.get(search.resource);
    if (!memory) return [];
    const { since = -Infinity, until = Infinity } = search;
    const results = memory.index.search(queryWords(search.query).join(' '), {
      filter: (result) => {
        const at = memory.entries.get(result.id as string)?.at;
        return at !== undefined && at >= since && at <= until;
      },
    });
    return results.slice(0, search.limit).map((result) => {
      const entry = memory.entries.get(result.id as string)!;
      return {
        messageId: entry.messageId,
        sessionId: entry.sessionId,
        text: entry.text,
        at: entry.at,
        score: result.score,
      };
    });
  }

  async delete(target: MemoryForget): Promise<number> {
    const memory = this.#resources.get(target.resource);
    if (!memory) return 0;
    const doomed = [...memory.entries.values()].filter(
      (entry) =>
        (target.sessionId === undefined || entry.sessionId === target.sessionId) &&
        (target.messageId === undefined || entry.messageId === target.messageId),
    );
    for (const entry of doomed) {
      memory.index.discard(entry.messageId);
      memory.entries.delete(entry.messageId);
    }
    // Discarded documents linger in MiniSearch's index until it vacuums; rebuild so none remains.
    if (doomed.length > 0) {
      if (memory.entries.size === 0) this.#resources.delete(target.resource);
      else this.#resources.set(target.resource, indexOf(memory.entries));
    }
    return doomed.length;
  }

  async close(): Promise<void> {
    this.#resources.clear();
  }

  #resourceMemory(resource: string): ResourceMemory {
    let memory = this.#resources.get(resource);
    if (!memory) {
      memory = indexOf(new Map());
      this.#resources.set(resource, memory);
    }
    return memory;
  }
}

function indexOf(entries: Map<string, MemoryEntry>): ResourceMemory {
  const index = new MiniSearch<MemoryEntry>({
    idField: 'messageId',
    fields: ['text'],
    storeFields: [],
    searchOptions: { combineWith: 'OR' },
  });
  index.addAll([...entries.values()]);
  return { index, entries };
}
