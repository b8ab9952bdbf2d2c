import MiniSearch from 'minisearch';
import { queryWords } from './query-words.ts';
import type {
  LongTermMemoryStore,
  MemoryEntry,
  MemoryForget,
  MemoryMatch,
  MemorySearch,
  MemoryVector,
  MemoryVectorSearch,
} from './types.ts';
import { closest } from './vectors.ts';

/** One resource's memory: its own index (BM25 by MiniSearch), its entries and their vectors by message id. */
interface ResourceMemory {
  index: MiniSearch<MemoryEntry>;
  entries: Map<string, MemoryEntry>;
  vectors: Map<string, { embedder: string; vector: Float32Array }>;
}

/**
 * Long-term memory in this process, searched with BM25 (https://lucaong.github.io/minisearch/):
 * for tests and single-process tools; gone when the process ends. Each resource has an index of its
 * own, so no search can reach another resource's messages. Vectors are arrays beside the entries,
 * compared one by one.
 */
export class InMemoryLongTermStore implements LongTermMemoryStore {
  readonly #resources = new Map<string, ResourceMemory>();

  async upsert(entries: MemoryEntry[]): Promise<void> {
    for (const entry of entries) {
      const memory = this.#resourceMemory(entry.resource);
      const before = memory.entries.get(entry.messageId);
      if (before) memory.index.discard(entry.messageId);
      if (before?.text !== entry.text) memory.vectors.delete(entry.messageId);
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

  async putVectors(resource: string, embedder: string, vectors: MemoryVector[]): Promise<void> {
    const memory = this.#resources.get(resource);
    for (const { messageId, vector } of vectors)
      if (memory?.entries.has(messageId)) memory.vectors.set(messageId, { embedder, vector: vector.slice() });
  }

  async withoutVectors(resource: string, embedder: string, limit: number): Promise<MemoryEntry[]> {
    const memory = this.#resources.get(resource);
    if (!memory) return [];
    const missing: MemoryEntry[] = [];
    for (const entry of memory.entries.values()) {
      if (missing.length >= limit) break;
      if (memory.vectors.get(entry.messageId)?.embedder !== embedder) missing.push({ ...entry });
    }
    return missing;
  }

  async searchVectors(search: MemoryVectorSearch): Promise<MemoryMatch[]> {
    const memory = this.#resources.get(search.resource);
    if (!memory) return [];
    const { since = -Infinity, until = Infinity } = search;
    const candidates = [...memory.vectors]
      .filter(([, stored]) => stored.embedder === search.embedder)
      .map(([messageId, stored]) => ({ entry: memory.entries.get(messageId)!, vector: stored.vector }))
      .filter(({ entry }) => entry.at >= since && entry.at <= until)
      .map(({ entry, vector }) => ({
        messageId: entry.messageId,
        sessionId: entry.sessionId,
        text: entry.text,
        at: entry.at,
        vector,
      }));
    return closest(search.vector, candidates, search.limit);
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
      memory.vectors.delete(entry.messageId);
    }
    // Discarded documents linger in MiniSearch's index until it vacuums; rebuild so none remains.
    if (doomed.length > 0) {
      if (memory.entries.size === 0) this.#resources.delete(target.resource);
      else this.#resources.set(target.resource, indexOf(memory.entries, memory.vectors));
    }
    return doomed.length;
  }

  async close(): Promise<void> {
    this.#resources.clear();
  }

  #resourceMemory(resource: string): ResourceMemory {
    let memory = this.#resources.get(resource);
    if (!memory) {
      memory = indexOf(new Map(), new Map());
      this.#resources.set(resource, memory);
    }
    return memory;
  }
}

function indexOf(entries: Map<string, MemoryEntry>, vectors: ResourceMemory['vectors']): ResourceMemory {
  const index = new MiniSearch<MemoryEntry>({
    idField: 'messageId',
    fields: ['text'],
    storeFields: [],
    searchOptions: { combineWith: 'OR' },
  });
  index.addAll([...entries.values()]);
  return { index, entries, vectors };
}
