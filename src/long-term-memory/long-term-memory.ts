import { ConfigurationError } from '../errors.ts';
import type { LongTermMemoryStore, MemoryEntry, MemoryRole } from './types.ts';

const roles: readonly MemoryRole[] = ['user', 'assistant', 'system', 'tool'];
const maxLimit = 1000;

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

/** What {@link LongTermMemory.recall} takes; `since` and `until` are inclusive. */
export interface RecallInput {
  resource: string;
  query: string;
  limit: number;
  since?: MemoryTime;
  until?: MemoryTime;
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

/** Options of {@link LongTermMemory}. */
export interface LongTermMemoryOptions {
  /** Where memory lives: an `InMemoryLongTermStore`, a `SqliteLongTermStore` or a `PostgresLongTermStore`. */
  store: LongTermMemoryStore;
}

/**
 * Long-term memory across sessions, per resource (a user, a customer): messages remembered from
 * one session are recalled in later ones by what they say. A resource is the unit of memory;
 * nothing is ever recalled across resources. Writes are idempotent: a retried `remember` replaces
 * what the first attempt stored. Call `close()` when done.
 */
export class LongTermMemory {
  readonly #store: LongTermMemoryStore;

  constructor(options: LongTermMemoryOptions) {
    if (!options?.store || typeof options.store.search !== 'function')
      throw new ConfigurationError(
        'LongTermMemory needs a store: new LongTermMemory({ store: new InMemoryLongTermStore() }).',
      );
    this.#store = options.store;
  }

  /**
   * Remembers the messages of one session. A message without an `id` gets
   * `<sessionId>/<at as ISO 8601>/<position in messages>`, so the same call retried stores nothing twice.
   * @returns the ids stored, in the order of `messages`.
   */
  async remember(input: RememberInput): Promise<string[]> {
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
    return ids;
  }

  /** The messages of `resource` that best match `query`, at most `limit` of them, best first. */
  async recall(input: RecallInput): Promise<RecallHit[]> {
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
    const matches = await this.#store.search({
      resource,
      query: input.query,
      limit: input.limit,
      since,
      until,
    });
    return matches.map((match) => ({ ...match, at: new Date(match.at) }));
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

  /** Closes the store. */
  async close(): Promise<void> {
    await this.#store.close?.();
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
