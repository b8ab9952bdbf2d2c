import { ConfigurationError } from '../errors.ts';
import { toEmbedder, type Embedder, type EmbedderOption, type EmbeddingTokens } from './embedder.ts';
import { spanNamedIn } from './query-dates.ts';
import { fuse, type RankedList } from './recall-ranking.ts';
import type { LongTermMemoryStore, MemoryEntry, MemoryRole } from './types.ts';

const roles: readonly MemoryRole[] = ['user', 'assistant', 'system', 'tool'];
const maxLimit = 1000;
/** How many matches each search hands to the fusion, at least. */
const candidates = 50;
/** The weight of the vector search beside the full-text search's 1. */
const vectorWeight = 0.7;
/** The weight of the searches kept to the time a query names, beside the plain ones. */
const dateWeight = 1;
/** Messages embedded per call when recall catches up on those remembered without vectors. */
const catchUpBatch = 64;

/** A moment: a `Date`, an ISO 8601 string or milliseconds since the epoch. */
export type MemoryTime = Date | string | number;

/** One message to remember. Without `id`, one is derived from the session, `at` and its position. */
export interface MemoryMessage {
  id?: string;
  role: MemoryRole;
  content: string;
}

/** What {@link LongTermMemory.remember} takes: the messages of one session said at `at`. */
export interface RememberInput {
  resource: string;
  sessionId: string;
  at: MemoryTime;
  messages: MemoryMessage[];
}

/**
 * How {@link LongTermMemory.recall} searches: `words` (full-text search), `meaning` (the
 * embedder's vectors) or `joined` (both, fused); the default is `joined` with an embedder, else `words`.
 */
export type RecallMode = 'joined' | 'words' | 'meaning';

/** What {@link LongTermMemory.recall} takes; `since` and `until` are inclusive. */
export interface RecallInput {
  resource: string;
  query: string;
  limit: number;
  since?: MemoryTime;
  until?: MemoryTime;
  /** When the query is asked, for the times it names ("yesterday", "last May"); default now. */
  at?: MemoryTime;
  mode?: RecallMode;
}

/** A recalled message: the id given to `remember` (or derived there), best first by `score`. */
export interface RecallHit {
  messageId: string;
  sessionId: string;
  text: string;
  at: Date;
  score: number;
}

/** What {@link LongTermMemory.forget} takes: a whole resource, one session or one message. */
export interface ForgetInput {
  resource: string;
  sessionId?: string;
  messageId?: string;
}

/** What `remember` and `recall` may also take: where to add the tokens their embedding spends. */
export interface EmbeddingSpend {
  /** Gets the tokens the embedder reports (an AI SDK model's `usage.tokens`, the offline model's word pieces). */
  usage?: EmbeddingTokens;
}

/** Options of {@link LongTermMemory}. */
export interface LongTermMemoryOptions {
  /** Where memory lives: an `InMemoryLongTermStore`, a `SqliteLongTermStore` or a `PostgresLongTermStore`. */
  store: LongTermMemoryStore;
  /**
   * Recall by meaning: an AI SDK embedding model (`openai.embedding('text-embedding-3-small')`),
   * `localEmbedder()` (offline) or any {@link Embedder}. Each remembered message is embedded; messages
   * remembered before (without it, or with another embedder) are embedded on the first recall of
   * their resource.
   */
  embedder?: EmbedderOption;
}

/**
 * Long-term memory across sessions, per resource (a user, a customer): messages remembered from
 * one session are recalled in later ones by what they say. A resource is the unit of memory;
 * nothing is ever recalled across resources. Writes are idempotent: a retried `remember` replaces
 * what the first attempt stored. Call `close()` when done.
 */
export class LongTermMemory {
  readonly #store: LongTermMemoryStore;
  readonly #embedder: Embedder | undefined;

  constructor(options: LongTermMemoryOptions) {
    if (!options?.store || typeof options.store.search !== 'function')
      throw new ConfigurationError(
        'LongTermMemory needs a store: new LongTermMemory({ store: new InMemoryLongTermStore() }).',
      );
    this.#store = options.store;
    if (options.embedder === undefined) return;
    this.#embedder = toEmbedder(options.embedder);
    const missing = (['putVectors', 'withoutVectors', 'searchVectors'] as const).filter(
      (method) => typeof options.store[method] !== 'function',
    );
    if (missing.length > 0)
      throw new ConfigurationError(
        `LongTermMemory: an embedder needs a store that keeps vectors, and this one has no ${missing.join(', ')}: ` +
          'use InMemoryLongTermStore, SqliteLongTermStore or PostgresLongTermStore, or leave the embedder out.',
      );
  }

  /** The embedder's id (`<provider>:<model id>`, `local:all-minilm-l6-v2`), or undefined without one. */
  get embedderId(): string | undefined {
    return this.#embedder?.id;
  }

  /**
   * Remembers the messages of one session. A message without an `id` gets
   * `<sessionId>/<at as ISO 8601>/<position in messages>`, so the same call retried stores nothing twice.
   * @returns the ids stored, in the order of `messages`.
   */
  async remember(input: RememberInput, spend: EmbeddingSpend = {}): Promise<string[]> {
    const resource = requireText(input?.resource, 'remember: resource');
    const sessionId = requireText(input.sessionId, 'remember: sessionId');
    const at = toTime(input.at, 'remember: at');
    if (!Array.isArray(input.messages))
      throw new ConfigurationError('remember: messages must be an array of { id?, role, content }.');
    const entries = input.messages.map((message, i): MemoryEntry => {
      const where = `remember: messages[${i}]`;
      if (!roles.includes(message?.role))
        throw new ConfigurationError(
          `${where}.role is ${JSON.stringify(message?.role)}; use one of ${roles.join(', ')}.`,
        );
      if (typeof message.content !== 'string')
        throw new ConfigurationError(`${where}.content must be a string (the message's text).`);
      const messageId =
        message.id === undefined
          ? `${sessionId}/${new Date(at).toISOString()}/${i}`
          : requireText(message.id, `${where}.id`);
      return { resource, sessionId, messageId, role: message.role, text: message.content, at };
    });
    const ids = entries.map((entry) => entry.messageId);
    const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
    if (repeated !== undefined)
      throw new ConfigurationError(
        `remember: the message id ${JSON.stringify(repeated)} is given twice in one call.`,
      );
    if (entries.length > 0) await this.#store.upsert(entries);
    // Stored first: should embedding fail, the messages are still remembered, and embedded on a later recall.
    if (entries.length > 0 && this.#embedder) await this.#storeVectors(resource, entries, spend.usage);
    return ids;
  }

  /** The messages of `resource` that best match `query`, at most `limit` of them, best first. */
  async recall(input: RecallInput, spend: EmbeddingSpend = {}): Promise<RecallHit[]> {
    const resource = requireText(input?.resource, 'recall: resource');
    if (typeof input.query !== 'string') throw new ConfigurationError('recall: query must be a string.');
    if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > maxLimit)
      throw new ConfigurationError(
        `recall: limit must be a whole number from 1 to ${maxLimit}; got ${input.limit}.`,
      );
    const since = input.since === undefined ? undefined : toTime(input.since, 'recall: since');
    const until = input.until === undefined ? undefined : toTime(input.until, 'recall: until');
    if (since !== undefined && until !== undefined && since > until)
      throw new ConfigurationError('recall: since is after until, so nothing could match.');
    const mode = input.mode ?? (this.#embedder ? 'joined' : 'words');
    if (!['joined', 'words', 'meaning'].includes(mode))
      throw new ConfigurationError(`recall: mode is ${JSON.stringify(mode)}; use joined, words or meaning.`);
    if (mode !== 'words' && !this.#embedder)
      throw new ConfigurationError(
        `recall: mode ${mode} needs an embedder: new LongTermMemory({ store, embedder: localEmbedder() }).`,
      );
    const now = input.at === undefined ? Date.now() : toTime(input.at, 'recall: at');
    const bounds = { since, until };
    const span = spanNamedIn(input.query, new Date(now));
    const named = span && {
      since: Math.max(span.since, since ?? -Infinity),
      until: Math.min(span.until, until ?? Infinity),
    };
    const embedder = mode === 'words' ? undefined : this.#embedder!;
    if (embedder) await this.#catchUp(resource, spend.usage);
    const [vector] = embedder ? await embedder.embed([input.query], spend.usage) : [];
    const lists: RankedList[] = [];
    const search = async (within: { since?: number; until?: number }, weight: number) => {
      const query = { resource, query: input.query, limit: Math.max(input.limit, candidates), ...within };
      if (mode !== 'meaning') lists.push({ matches: await this.#store.search(query), weight });
      if (embedder) {
        const matches = await this.#store.searchVectors!({
          ...query,
          embedder: embedder.id,
          vector: vector!,
        });
        lists.push({ matches, weight: weight * vectorWeight });
      }
    };
    await search(bounds, 1);
    if (named && named.since <= named.until) await search(named, dateWeight);
    return fuse(lists, input.limit).map((match) => ({ ...match, at: new Date(match.at) }));
  }

  /**
   * Forgets from every index of the store: the whole resource, one of its sessions (`sessionId`)
   * or one message (`messageId`). Nothing forgotten is recalled afterwards.
   * @returns how many messages were forgotten.
   */
  async forget(input: ForgetInput): Promise<number> {
    const resource = requireText(input?.resource, 'forget: resource');
    const sessionId =
      input.sessionId === undefined ? undefined : requireText(input.sessionId, 'forget: sessionId');
    const messageId =
      input.messageId === undefined ? undefined : requireText(input.messageId, 'forget: messageId');
    return this.#store.delete({ resource, sessionId, messageId });
  }

  /** Closes the store and the embedder. */
  async close(): Promise<void> {
    await this.#store.close?.();
    await this.#embedder?.close?.();
  }

  async #storeVectors(resource: string, entries: MemoryEntry[], usage?: EmbeddingTokens): Promise<void> {
    const embedder = this.#embedder!;
    const vectors = await embedder.embed(
      entries.map((entry) => entry.text),
      usage,
    );
    if (vectors.length !== entries.length)
      throw new Error(
        `The embedder ${embedder.id} gave ${vectors.length} vectors for ${entries.length} texts.`,
      );
    await this.#store.putVectors!(
      resource,
      embedder.id,
      entries.map((entry, i) => ({ messageId: entry.messageId, vector: vectors[i]! })),
    );
  }

  /** Embeds the messages of `resource` that have no vector of this embedder (remembered without it). */
  async #catchUp(resource: string, usage?: EmbeddingTokens): Promise<void> {
    const done = new Set<string>();
    for (;;) {
      const missing = await this.#store.withoutVectors!(resource, this.#embedder!.id, catchUpBatch);
      if (missing.length === 0) return;
      const again = missing.find((entry) => done.has(entry.messageId));
      if (again)
        throw new Error(
          `The store still has no vector for ${JSON.stringify(again.messageId)} after it was given one: ` +
            'its putVectors does not keep what withoutVectors finds missing.',
        );
      await this.#storeVectors(resource, missing, usage);
      for (const entry of missing) done.add(entry.messageId);
      if (missing.length < catchUpBatch) return;
    }
  }
}

function requireText(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new ConfigurationError(`${what} must be a non-empty string; got ${JSON.stringify(value)}.`);
  return value;
}

function toTime(value: MemoryTime, what: string): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms))
    throw new ConfigurationError(
      `${what} is not a time: give a Date, an ISO 8601 string or epoch milliseconds; got ${JSON.stringify(value)}.`,
    );
  return ms;
}
