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
 * The text of the steps in flight, for readers that subscribe in the middle of one: an unlogged
 * table (not written to the write-ahead log; emptied if the database crashes), a row per message,
 * deleted when the step closes. Rows a worker left behind when it died go after a day.
 */
const OPEN_STEPS = 'toolkit_live_text_steps';
const CREATE_OPEN_STEPS = `CREATE UNLOGGED TABLE IF NOT EXISTS ${OPEN_STEPS} (
  id bigserial PRIMARY KEY,
  channel text NOT NULL,
  workflow_id text NOT NULL,
  run_id text NOT NULL,
  seq integer NOT NULL,
  message text NOT NULL,
  said_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ${OPEN_STEPS}_workflow ON ${OPEN_STEPS} (channel, workflow_id, id)`;

/**
 * A live channel across processes through PostgreSQL's `LISTEN` / `NOTIFY`: give the same one (same
 * database and channel) to `createAgentWorker` and `AgentClient.connect` as `liveChannel`, and readers
 * in any process get the model's text as it is written. It holds two connections of its own (one
 * that says, one that listens, opened on first use); `close()` ends them. Messages go through the
 * database in the order said, best effort (a reader that misses one gets that step's text when the
 * step answers). The text of each step in flight is also kept in the table `toolkit_live_text_steps`
 * (created on first use, unlogged) until the step closes: a reader that subscribes in the middle of
 * a step gets its text so far from there. `pg` is an optional peer dependency.
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
    const { workflowId, runId, seq } = message;
    for (const piece of pieces(message)) {
      const payload = JSON.stringify(piece);
      // Kept (or, once the step closed, forgotten) in the statement that says it: a reader that
      // reads the table after it listens misses nothing.
      const statement =
        piece.kind === 'closed'
          ? `WITH gone AS (DELETE FROM ${OPEN_STEPS} WHERE channel = $1 AND workflow_id = $3 AND run_id = $4 AND seq = $5) SELECT pg_notify($1, $2)`
          : `WITH kept AS (INSERT INTO ${OPEN_STEPS} (channel, workflow_id, run_id, seq, message) VALUES ($1, $3, $4, $5, $2)) SELECT pg_notify($1, $2)`;
      // One connection, one statement after the other: the listeners get them in this order.
      this.#said = this.#said
        .then(() => saying)
        .then((client) => client?.query(statement, [this.#channel, payload, workflowId, runId, seq]))
        .catch(() => undefined);
    }
  }

  subscribe(workflowId: string, listener: (message: LiveTextMessage) => void): () => void {
    const unsubscribe = this.#local.subscribe(workflowId, listener);
    let subscribed = true;
    this.#subscribers += 1;
    this.#listening ??= this.#listen().catch(() => undefined);
    // Once listening, the text so far of the steps in flight (the listener takes a piece twice once).
    void this.#listening
      .then((client) =>
        client?.query<{ message: string }>(
          `SELECT message FROM ${OPEN_STEPS} WHERE channel = $1 AND workflow_id = $2 ORDER BY id`,
          [this.#channel, workflowId],
        ),
      )
      .then((kept) => {
        for (const { message } of kept?.rows ?? []) {
          if (!subscribed) return;
          listener(JSON.parse(message) as LiveTextMessage);
        }
      })
      .catch(() => undefined);
    return () => {
      subscribed = false;
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
    await openStepsTable(client);
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

/**
 * Creates the table of the steps in flight when it is not there, and forgets the steps that workers
 * left behind more than a day ago. Two processes creating it at once: one of them waits for the other.
 */
async function openStepsTable(client: pg.Client): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('${OPEN_STEPS}'))`);
    await client.query(CREATE_OPEN_STEPS);
    await client.query(`DELETE FROM ${OPEN_STEPS} WHERE said_at < now() - interval '1 day'`);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
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
