import type pg from 'pg';
import { ConfigurationError } from '../errors.ts';
import { importOptional } from '../optional-dependency.ts';
import { InProcessLiveChannel, type LiveTextChannel, type LiveTextMessage } from './channel.ts';

export interface PostgresLiveChannelOptions {
  /** e.g. `postgres://user:password@db.internal:5432/agents`: the workers' and the readers' database. */
  connectionString: string;
  /** The `NOTIFY` channel (a-z, 0-9, _). Default `toolkit_live_text`. */
  channel?: string;
}

const FEATURE = 'PostgresLiveChannel';
/** PostgreSQL refuses a notification payload of 8,000 bytes or more: longer text goes in pieces. */
const MAX_TEXT_BYTES = 6_000;

/**
 * A live channel across processes through PostgreSQL's `LISTEN` / `NOTIFY`: give the same one (same
 * database and channel) to `createAgentWorker` and `AgentClient.connect` as `liveChannel`, and readers
 * in any process get the model's text as it is written. It holds two connections of its own (one
 * that says, one that listens, opened on first use); `close()` ends them. Messages go through the
 * database in the order said, best effort (a reader that misses one reads that step's text from the
 * batches). `pg` is an optional peer dependency.
 */
export class PostgresLiveChannel implements LiveTextChannel {
  readonly #options: PostgresLiveChannelOptions;
  readonly #channel: string;
  readonly #local = new InProcessLiveChannel();
  #saying: Promise<pg.Client | undefined> | undefined;
  #said: Promise<unknown> = Promise.resolve();
  #listening: Promise<pg.Client | undefined> | undefined;
  #subscribers = 0;
  #closed = false;

  constructor(options: PostgresLiveChannelOptions) {
    if (!options?.connectionString)
      throw new ConfigurationError(`${FEATURE} needs a connectionString (postgres://...).`);
    this.#channel = options.channel ?? 'toolkit_live_text';
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(this.#channel))
      throw new ConfigurationError(
        `Invalid channel name ${JSON.stringify(this.#channel)} for ${FEATURE}: use a-z, 0-9 and _.`,
      );
    this.#options = options;
  }

  publish(message: LiveTextMessage): void {
    if (this.#closed) return;
    this.#saying ??= this.#connect().catch(() => undefined);
    const saying = this.#saying;
    for (const piece of pieces(message)) {
      const payload = JSON.stringify(piece);
      // One connection, one statement after the other: the listeners get them in this order.
      this.#said = this.#said
        .then(() => saying)
        .then((client) => client?.query('SELECT pg_notify($1, $2)', [this.#channel, payload]))
        .catch(() => undefined);
    }
  }

  subscribe(workflowId: string, listener: (message: LiveTextMessage) => void): () => void {
    const unsubscribe = this.#local.subscribe(workflowId, listener);
    this.#subscribers += 1;
    this.#listening ??= this.#listen().catch(() => undefined);
    return () => {
      unsubscribe();
      this.#subscribers -= 1;
    };
  }

  /** Resolves once the channel listens (readers subscribed before hear what is said after). */
  async ready(): Promise<void> {
    this.#listening ??= this.#listen().catch(() => undefined);
    await this.#listening;
  }

  /** Ends the channel's connections. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#said;
    for (const client of [await this.#saying, await this.#listening]) {
      await client?.end().catch(() => undefined);
    }
  }

  async #connect(): Promise<pg.Client> {
    const { default: postgres } = await importOptional<{ default: typeof pg }>('pg', FEATURE);
    const client = new postgres.Client({ connectionString: this.#options.connectionString });
    // A connection lost is not the process's failure: messages are best effort.
    client.on('error', () => undefined);
    await client.connect();
    return client;
  }

  async #listen(): Promise<pg.Client> {
    const client = await this.#connect();
    client.on('notification', (notification) => {
      if (notification.channel !== this.#channel || !notification.payload || this.#subscribers === 0) return;
      try {
        this.#local.publish(JSON.parse(notification.payload) as LiveTextMessage);
      } catch {
        // Not a message of ours.
      }
    });
    await client.query(`LISTEN ${this.#channel}`);
    return client;
  }
}

/** A message in pieces that fit a notification (only text can be long). */
function pieces(message: LiveTextMessage): LiveTextMessage[] {
  if (message.kind !== 'text' || Buffer.byteLength(message.text) <= MAX_TEXT_BYTES) return [message];
  const out: LiveTextMessage[] = [];
  // At most 3 bytes per UTF-16 unit: a slice this long always fits.
  const step = Math.floor(MAX_TEXT_BYTES / 3);
  const { text } = message;
  for (let at = 0; at < text.length;) {
    let end = Math.min(at + step, text.length);
    // Do not split a surrogate pair.
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end -= 1;
    out.push({ ...message, offset: message.offset + at, text: text.slice(at, end) });
    at = end;
  }
  return out;
}
