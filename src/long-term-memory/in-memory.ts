import MiniSearch from 'minisearch';
import { CONTEXT_WEIGHT, contextsOf, saidAfter, type MessageContext } from './message-context.ts';
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

/** A stored entry with the message said before it in its session, if any. */
type StoredEntry = MemoryEntry & Partial<MessageContext>;

/** One resource's memory: its own index (BM25 by MiniSearch), its entries and their vectors by message id. */
interface ResourceMemory {
  index: MiniSearch<StoredEntry>;
  entries: Map<string, StoredEntry>;
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
    const contexts = await contextsOf(entries, async (entry, givenIds) =>
      this.#latestBefore(entry, givenIds),
    );
    entries.forEach((entry, i) => {
      const memory = this.#resourceMemory(entry.resource);
      const before = memory.entries.get(entry.messageId);
      this.#put(memory, { ...entry, ...contexts[i] });
      if (before?.text === entry.text) return;
      memory.vectors.delete(entry.messageId);
      // A new message is no other's context yet; the messages said after a changed one search its new words.
      if (!before) return;
      for (const later of memory.entries.values())
        if (later.contextId === entry.messageId) this.#put(memory, { ...later, context: entry.text });
    });
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
    // A message said after a forgotten one keeps no copy of its words.
    const gone = new Set(doomed.map((entry) => entry.messageId));
    for (const entry of memory.entries.values())
      if (entry.contextId !== undefined && gone.has(entry.contextId)) {
        delete entry.contextId;
        delete entry.context;
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

  /** Stores `entry` in the index and the entries, replacing the one of its id. */
  #put(memory: ResourceMemory, entry: StoredEntry): void {
    if (memory.entries.has(entry.messageId)) memory.index.discard(entry.messageId);
    memory.entries.set(entry.messageId, entry);
    memory.index.add(entry);
  }

  /** The latest message of `entry`'s session said at or before it (by time, then id), not one of `givenIds`. */
  #latestBefore(entry: MemoryEntry, givenIds: string[]): MemoryEntry | undefined {
    let latest: MemoryEntry | undefined;
    for (const stored of this.#resources.get(entry.resource)?.entries.values() ?? [])
      if (
        stored.sessionId === entry.sessionId &&
        stored.at <= entry.at &&
        !givenIds.includes(stored.messageId) &&
        (!latest || saidAfter(stored, latest))
      )
        latest = stored;
    return latest;
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

function indexOf(entries: Map<string, StoredEntry>, vectors: ResourceMemory['vectors']): ResourceMemory {
  const index = new MiniSearch<StoredEntry>({
    idField: 'messageId',
    fields: ['text', 'context'],
    storeFields: [],
    searchOptions: { combineWith: 'OR', boost: { context: CONTEXT_WEIGHT } },
  });
  index.addAll([...entries.values()]);
  return { index, entries, vectors };
}
