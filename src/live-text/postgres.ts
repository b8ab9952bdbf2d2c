import type pg from 'pg';
import { ConfigurationError } from '../errors.ts';
import { importOptional } from '../optional-dependency.ts';
import {
  InProcessLiveChannel,
  type LiveEventMessage,
  type LiveTextChannel,
  type LiveTextMessage,
} from './channel.ts';
import { OpenSteps } from './open-steps.ts';

export interface PostgresLiveChannelOptions {
  /** e.g. `postgres://user:password@db.internal:5432/agents`: the workers' and the readers' database. */
  connectionString: string;
  /** The `NOTIFY` channel (a-z, 0-9, _). Default `toolkit_live_text`. */
  channel?: string;
}

const FEATURE = 'PostgresLiveChannel';
/** PostgreSQL refuses a notification payload of 8,000 bytes or more: longer text goes in pieces. */
const MAX_TEXT_BYTES = 6_000;
/** A notification carries the messages said together, as a JSON array, up to this size. */
const MAX_NOTIFICATION_BYTES = 7_900;

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
 * Says a batch of messages in one statement: keeps the text of the steps in flight, forgets the
 * steps that closed, and notifies the messages in order, all in one transaction (a reader that
 * reads the table after it listens misses nothing). The rows a statement deletes do not include
 * those it inserts: a step that closes within a batch has its rows left out instead.
 */
const SAY = `WITH kept AS (
  INSERT INTO ${OPEN_STEPS} (channel, workflow_id, run_id, seq, message)
  SELECT $1, k.workflow_id, k.run_id, k.seq, k.message
  FROM unnest($2::text[], $3::text[], $4::integer[], $5::text[]) WITH ORDINALITY AS k(workflow_id, run_id, seq, message, n)
  ORDER BY k.n
), gone AS (
  DELETE FROM ${OPEN_STEPS} WHERE channel = $1
  AND (workflow_id, run_id, seq) IN (SELECT * FROM unnest($6::text[], $7::text[], $8::integer[]))
)
SELECT pg_notify($1, p.payload) FROM unnest($9::text[]) WITH ORDINALITY AS p(payload, n) ORDER BY p.n`;

/** Says the runs' events, a notification per payload, in order (on a channel of their own). */
const SAY_EVENTS = `SELECT pg_notify($1, p.payload) FROM unnest($2::text[]) WITH ORDINALITY AS p(payload, n) ORDER BY p.n`;

/** What the channel says next: a step's text or a run's event. */
type Said = { text: LiveTextMessage } | { event: LiveEventMessage };

/**
 * A live channel across processes through PostgreSQL's `LISTEN` / `NOTIFY`: give the same one (same
 * database and channel) to `createAgentWorker` and `AgentClient.connect` as `liveChannel`, and readers
 * in any process get the model's text as it is written. It holds two connections of its own (one
 * that says, one that listens, opened on first use); `close()` ends them. Messages go through the
 * database in the order said, best effort (a reader that misses one gets that step's text when the
 * step answers): those said while a statement is under way go in the next one, as one notification
 * (a JSON array; a listener also takes a single message). The text of each step in flight is also kept in the table `toolkit_live_text_steps`
 * (created on first use, unlogged) until the step closes: a reader that subscribes in the middle of
 * a step gets its text so far from there. The runs' events go on a `NOTIFY` channel of their own,
 * `<channel>_events` (in order with the text said here; an event too large for a notification as its
 * seq alone). `pg` is an optional peer dependency.
 */
export class PostgresLiveChannel implements LiveTextChannel {
  readonly #options: PostgresLiveChannelOptions;
  readonly #channel: string;
  readonly #local = new InProcessLiveChannel();
  #saying: Promise<pg.Client | undefined> | undefined;
  /** Messages to say in the next statements, in order. */
  readonly #queue: Said[] = [];
  /** The statements under way, until the queue is empty. */
  #said: Promise<void> | undefined;
  #listening: Promise<pg.Client | undefined> | undefined;
  /** The reads of the open steps' text, one after the other. */
  #reading: Promise<pg.QueryResult<{ message: string }> | undefined> = Promise.resolve(undefined);
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
    this.#say(pieces(message).map((text) => ({ text })));
  }

  /** Says a run's event on the events channel (`<channel>_events`), in order with the text said here. */
  publishEvent(message: LiveEventMessage): void {
    this.#say([{ event: message }]);
  }

  #say(said: Said[]): void {
    if (this.#closed) return;
    this.#saying ??= this.#connect().catch(() => undefined);
    this.#queue.push(...said);
    // What is said while a statement is under way goes in the next one, all at once: one round
    // trip per batch, not per message (a worker with many steps writing would fall behind).
    this.#said ??= this.#sayQueued();
  }

  /** Says what is queued, a statement at a time, until nothing is left. */
  async #sayQueued(): Promise<void> {
    const client = await this.#saying;
    for (;;) {
      if (this.#queue.length === 0) {
        // Said and cleared at once: a message published from now on starts the next round.
        this.#said = undefined;
        return;
      }
      const batch = this.#queue.splice(0, this.#queue.length);
      // One connection, one statement after the other: the listeners get them in this order
      // (text and events apart, each run of one kind in a statement).
      for (const [kind, run] of runsOfKind(batch)) {
        const statement =
          kind === 'text'
            ? client?.query(
                SAY,
                sayParameters(
                  this.#channel,
                  run.map((said) => (said as { text: LiveTextMessage }).text),
                ),
              )
            : client?.query(SAY_EVENTS, [
                eventsChannel(this.#channel),
                eventPayloads(run.map((said) => (said as { event: LiveEventMessage }).event)),
              ]);
        await statement?.catch(() => undefined);
      }
    }
  }

  subscribe(workflowId: string, listener: (message: LiveTextMessage) => void): () => void {
    const unsubscribe = this.#local.subscribe(workflowId, listener);
    let subscribed = true;
    this.#listening ??= this.#listen().catch(() => undefined);
    // Once listening, the text so far of the steps in flight (the listener takes a piece twice once).
    // One query at a time on the listening connection, however many readers subscribe at once.
    const read = (this.#reading = this.#reading
      .then(() => this.#listening)
      .then((client) =>
        client?.query<{ message: string }>(
          `SELECT message FROM ${OPEN_STEPS} WHERE channel = $1 AND workflow_id = $2 ORDER BY id`,
          [this.#channel, workflowId],
        ),
      )
      .catch(() => undefined));
    void read
      .then((kept) => {
        // Each step's text so far as one message: pieces heard live meanwhile may be ahead of the
        // first rows, and a reader takes text that reaches what it heard, not a piece before it.
        const open = new OpenSteps();
        for (const { message } of kept?.rows ?? []) open.note(JSON.parse(message) as LiveTextMessage);
        for (const said of open.of(workflowId)) {
          if (!subscribed) return;
          listener(said);
        }
      })
      .catch(() => undefined);
    return () => {
      subscribed = false;
      unsubscribe();
    };
  }

  subscribeEvents(workflowId: string, listener: (message: LiveEventMessage) => void): () => void {
    this.#listening ??= this.#listen().catch(() => undefined);
    return this.#local.subscribeEvents(workflowId, listener);
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
    await this.#reading;
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
    const events = eventsChannel(this.#channel);
    client.on('notification', (notification) => {
      // Heard even while nobody subscribes: the text so far kept here must not fall behind the
      // table's, or a reader that subscribes next gets stale text, then a piece after a gap.
      const text = notification.channel === this.#channel;
      if ((!text && notification.channel !== events) || !notification.payload) return;
      let said: unknown;
      try {
        said = JSON.parse(notification.payload);
      } catch {
        return; // not a message of ours
      }
      // A notification carries the messages said together, in order (or one, from earlier versions).
      for (const message of Array.isArray(said) ? said : [said]) {
        if (text) this.#local.publish(message as LiveTextMessage);
        else this.#local.publishEvent(message as LiveEventMessage);
      }
    });
    await client.query(`LISTEN ${this.#channel}`);
    await client.query(`LISTEN ${events}`);
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

/** The parameters of {@link SAY} for `batch` (messages that fit a notification each), in order. */
function sayParameters(channel: string, batch: LiveTextMessage[]): unknown[] {
  const kept: { message: LiveTextMessage; json: string }[] = [];
  const gone: LiveTextMessage[] = [];
  const jsons = batch.map((message) => JSON.stringify(message));
  batch.forEach((message, i) => {
    if (message.kind !== 'closed') {
      kept.push({ message, json: jsons[i]! });
      return;
    }
    // Its rows go: those of earlier statements by the delete, this batch's are not inserted.
    const same = (other: LiveTextMessage) =>
      other.workflowId === message.workflowId && other.runId === message.runId && other.seq === message.seq;
    for (let k = kept.length - 1; k >= 0; k--) if (same(kept[k]!.message)) kept.splice(k, 1);
    if (!gone.some(same)) gone.push(message);
  });
  return [
    channel,
    kept.map(({ message }) => message.workflowId),
    kept.map(({ message }) => message.runId),
    kept.map(({ message }) => message.seq),
    kept.map(({ json }) => json),
    gone.map((message) => message.workflowId),
    gone.map((message) => message.runId),
    gone.map((message) => message.seq),
    notifications(jsons),
  ];
}

/** Messages (as JSON, each small enough) packed in order into JSON arrays that fit a notification each. */
function notifications(jsons: string[]): string[] {
  const payloads: string[] = [];
  let packed: string[] = [];
  let packedBytes = 2;
  for (const json of jsons) {
    const bytes = Buffer.byteLength(json) + 1;
    if (packed.length > 0 && packedBytes + bytes > MAX_NOTIFICATION_BYTES) {
      payloads.push(`[${packed.join(',')}]`);
      [packed, packedBytes] = [[], 2];
    }
    packed.push(json);
    packedBytes += bytes;
  }
  if (packed.length > 0) payloads.push(`[${packed.join(',')}]`);
  return payloads;
}

/** A message in pieces that fit a notification (only text can be long). */
function pieces(message: LiveTextMessage): LiveTextMessage[] {
  if (message.kind !== 'text' || jsonBytes(message.text) <= MAX_TEXT_BYTES) return [message];
  const out: LiveTextMessage[] = [];
  // At most 3 bytes per UTF-16 unit: a slice this long fits unless JSON escapes much of it.
  const step = Math.floor(MAX_TEXT_BYTES / 3);
  const { text } = message;
  for (let at = 0; at < text.length;) {
    let end = Math.min(at + step, text.length);
    // Do not split a surrogate pair.
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end -= 1;
    // Characters written escaped in JSON (quotes, controls) take more: shorter then.
    while (end - at > 2 && jsonBytes(text.slice(at, end)) > MAX_TEXT_BYTES) {
      end = at + Math.floor((end - at) / 2);
      if (/[\uD800-\uDBFF]/.test(text[end - 1]!)) end -= 1;
    }
    out.push({ ...message, offset: message.offset + at, text: text.slice(at, end) });
    at = end;
  }
  return out;
}

/** The bytes of `text` as a JSON string. */
function jsonBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text));
}

/** The `NOTIFY` channel of the runs' events beside `channel` (readers of earlier versions do not listen to it). */
function eventsChannel(channel: string): string {
  return `${channel.slice(0, 56)}_events`;
}

/** `batch` as runs of one kind each, in order. */
function runsOfKind(batch: Said[]): ['text' | 'event', Said[]][] {
  const runs: ['text' | 'event', Said[]][] = [];
  for (const said of batch) {
    const kind = 'text' in said ? 'text' : 'event';
    const last = runs.at(-1);
    if (last?.[0] === kind) last[1].push(said);
    else runs.push([kind, [said]]);
  }
  return runs;
}

/**
 * The notifications that say `events`, in order. An event too large for a notification goes as its
 * seq alone: a reader reads the run for it.
 */
function eventPayloads(events: LiveEventMessage[]): string[] {
  return notifications(
    events.map((message) => {
      const json = JSON.stringify(message);
      if (Buffer.byteLength(json) + 2 <= MAX_NOTIFICATION_BYTES) return json;
      const { event: _event, ...seqOnly } = message;
      return JSON.stringify(seqOnly);
    }),
  );
}
