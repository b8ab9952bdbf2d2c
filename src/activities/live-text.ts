import type { Context } from '@temporalio/activity';
import { DEFAULT_TEXT_DELTA_BATCH_MS, type TextDeltaSignal } from '../common/control.ts';
import { textDeltaSignal } from '../common/workflow-definitions.ts';
import type { LiveTextOption } from '../agent/definition.ts';
import { ConfigurationError } from '../errors.ts';
import { parsePartialJson } from '../output/partial-json.ts';
import type { LiveStepKey, LiveTextChannel, LiveTextMessage } from '../live-text/channel.ts';
import type { ModelStep } from '../common/model-step.ts';

/** Says a step's live text on a channel (its key added): see {@link LiveTextChannel}. */
export type LivePublish = (message: DistributiveOmit<LiveTextMessage, keyof LiveStepKey>) => void;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * How long a step waits for its model's first text before it says what its first batch would have
 * said first (what became of the calls it carried, or a run's opening) in a signal of its own (a
 * signal is a history event and a workflow task: a model that answers or writes sooner carries it
 * for free).
 */
const FIRST_ALONE_AFTER_MS = 1_000;

/** What a step's first batch says before its text. */
export type FirstBatch = Pick<TextDeltaSignal, 'settled' | 'opening'>;

export function resolveLiveText(agent: string, option: LiveTextOption | undefined): number | undefined {
  if (option === false) return undefined;
  const batchMs =
    typeof option === 'object'
      ? (option.batchMs ?? DEFAULT_TEXT_DELTA_BATCH_MS)
      : DEFAULT_TEXT_DELTA_BATCH_MS;
  if (!(typeof batchMs === 'number' && batchMs >= 1)) {
    throw new ConfigurationError(`Agent "${agent}": liveText.batchMs must be a number of at least 1.`);
  }
  return batchMs;
}

/** How a step's text reached readers when it went on the live channel only (see {@link ModelStep}). */
export type StreamedText = NonNullable<ModelStep['streamed']>;

/**
 * Carries the text a model writes to the run's readers. With a live channel (`live`), each piece
 * of text is said there the moment it is written (with its offset in the step's text), and the
 * workflow gets none of it while the step runs: the step's result carries the text, and the run
 * records it once ({@link TextDeltaBatcher.streamed}). Only what must come before the text in the
 * run's events (what became of the calls the step carried, a run's opening) goes to the workflow,
 * in a signal of its own. Without a channel, the text goes to the workflow as one signal per batch
 * (`batchMs` after the first character of a batch), in order: each signal is a history event and
 * a workflow task (docs/streaming.md). Either way it is best effort: a signal that fails is
 * dropped, since the step's result, not its deltas, is what the run keeps. A streaming check
 * (`gate`) reads the text so far before each batch goes out, on the channel as to the workflow.
 */
export class TextDeltaBatcher {
  readonly #send: (text: string, partial: unknown, first?: FirstBatch) => Promise<void>;
  readonly #batchMs: number;
  /** Structured runs: each batch also carries the answer parsed so far. */
  readonly #structured: boolean;
  #buffer = '';
  /** All text of the step so far (structured runs only). */
  #written = '';
  #lastPartial = '';
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** What the first batch says first, until a batch has said it (see {@link TextDeltaBatcher.sayFirst}). */
  #first: FirstBatch | undefined;
  #firstAlone: ReturnType<typeof setTimeout> | undefined;
  #sending: Promise<void> = Promise.resolve();
  readonly #live: LivePublish | undefined;
  /** The text goes on the channel only, never to the workflow while the step runs. */
  readonly #liveOnly: boolean;
  /** Characters of text said live so far. */
  #offset = 0;
  /** The text said live so far (live only): what readers got. */
  #told = '';
  /** The first batch says something first and is not sent yet: text said live is `held`. */
  #held = false;
  /** ... and it only starts the run's first step (no warning, no calls): see {@link LiveTextMessage}. */
  #opens = false;
  /** Asked with all text so far before each batch is sent: a false answer drops it and every later one. */
  readonly #gate: ((textSoFar: string) => Promise<boolean>) | undefined;
  /** All text so far, for the gate. */
  #soFar = '';
  #closedByGate = false;

  constructor(
    send: (text: string, partial: unknown, first?: FirstBatch) => Promise<void>,
    batchMs: number,
    options: {
      structured?: boolean;
      live?: LivePublish | undefined;
      /** With `live`: the text goes on the channel only (not in a structured run, whose batches parse it). */
      liveOnly?: boolean;
      gate?: (textSoFar: string) => Promise<boolean>;
    } = {},
  ) {
    this.#send = send;
    this.#batchMs = batchMs;
    this.#structured = options.structured ?? false;
    this.#live = options.live;
    this.#liveOnly = options.live !== undefined && options.liveOnly === true;
    this.#gate = options.gate;
  }

  /**
   * The live text of one model step of the workflow run that scheduled the activity: on `channel`
   * only (a structured run's text also goes in batches, which carry its answer so far), else in
   * signals.
   */
  static forActivity(
    context: Context,
    seq: number,
    batchMs: number,
    options: {
      structured?: boolean;
      channel?: LiveTextChannel | undefined;
      gate?: (textSoFar: string) => Promise<boolean>;
    } = {},
  ): TextDeltaBatcher {
    const { workflowExecution, attempt } = context.info;
    if (!workflowExecution) throw new Error('Live text needs the activity to belong to a workflow.');
    const { workflowId, runId } = workflowExecution;
    const handle = context.client.workflow.getHandle(workflowId, runId);
    const channel = options.channel;
    const key: LiveStepKey = { workflowId, runId, seq, attempt };
    const liveOnly = channel !== undefined && !options.structured;
    return new TextDeltaBatcher(
      (text, partial, first) =>
        handle.signal(textDeltaSignal, {
          seq,
          attempt,
          text,
          ...(partial === undefined ? {} : { partial }),
          ...first,
        }),
      batchMs,
      {
        ...(options.structured ? { structured: true } : {}),
        // In batches, a step whose text a streaming guardrail checks says nothing live: readers get only checked batches.
        ...(channel && (liveOnly || !options.gate)
          ? { live: (message) => channel.publish({ ...key, ...message }), liveOnly }
          : {}),
        ...(options.gate ? { gate: options.gate } : {}),
      },
    );
  }

  /** The model wrote `text`. */
  push(text: string): void {
    if (!text) return;
    // Checked text is said once its batch passed the checks.
    if (!(this.#liveOnly && this.#gate)) this.#sayLive(text);
    if (this.#liveOnly && !this.#gate) {
      // The text goes out at once; what comes before it in the run's events, right before. A run's
      // first step that only starts needs no signal: its text says it started, its result the rest.
      if (this.#first && !this.#opens) this.#flush();
      else clearTimeout(this.#firstAlone);
      return;
    }
    this.#buffer += text;
    this.#timer ??= setTimeout(() => this.#flush(), this.#batchMs);
  }

  /**
   * What the first batch says before any text, so its events come first: what became of the calls
   * the step carried, or a run's opening (the step's limit, the MCP servers left out). When the
   * model has written nothing a second on, it goes alone (so a reader sees it while the model
   * thinks). A step that answers sooner says it in its result.
   */
  sayFirst(first: FirstBatch): void {
    this.#first = first;
    this.#held = true;
    this.#opens = first.opening !== undefined && !first.opening.unavailable_mcps?.length && !first.settled;
    this.#firstAlone = setTimeout(
      () => {
        if (this.#first) this.#flush();
      },
      Math.max(this.#batchMs, FIRST_ALONE_AFTER_MS),
    );
  }

  /** Sends what is left and waits until every batch has been sent (before the step returns). */
  async close(): Promise<void> {
    clearTimeout(this.#firstAlone);
    if (!this.#buffer) this.#first = undefined; // no text to precede: the result says it
    this.#flush();
    await this.#sending;
    this.#live?.({ kind: 'closed' });
  }

  /**
   * The step ends without an answer (it failed, or the run was stopped): text that went on the
   * channel only goes to the workflow now, in one batch, so that a stopped turn keeps what it wrote.
   */
  async abandon(): Promise<void> {
    if (!this.#liveOnly) return this.close();
    clearTimeout(this.#firstAlone);
    clearTimeout(this.#timer);
    this.#buffer = '';
    await this.#sending;
    const told = this.#told;
    this.#told = '';
    if (told && !this.#closedByGate) await this.#send(told, undefined, this.#first).catch(() => undefined);
    this.#first = undefined;
    this.#live?.({ kind: 'closed' });
  }

  /**
   * How the step's text reached readers, for its result, when it went on the channel only: the
   * run records it from the result (`text`, the step's answer; what readers got when it differs).
   */
  streamed(text: string, attempt: number): StreamedText | undefined {
    if (!this.#liveOnly || !this.#told) return undefined;
    return { attempt, ...(this.#told === text ? {} : { text: this.#told }) };
  }

  #sayLive(text: string): void {
    const held = this.#held ? { held: true as const, ...(this.#opens ? { opens: true as const } : {}) } : {};
    this.#live?.({ kind: 'text', offset: this.#offset, text, ...held });
    this.#offset += text.length;
    if (this.#liveOnly) this.#told += text;
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const text = this.#buffer;
    const first = this.#first;
    this.#buffer = '';
    this.#first = undefined;
    if (!text && !first) return;
    const partial = text ? this.#partial(text) : undefined;
    const gate = this.#gate;
    if (gate) this.#soFar += text;
    const soFar = this.#soFar;
    const liveOnly = this.#liveOnly;
    let passed = false;
    this.#sending = this.#sending
      .then(async () => {
        if (this.#closedByGate) return;
        // Live only, what comes first goes alone, before the text is checked.
        if (liveOnly && first) await this.#send('', undefined, first).catch(() => undefined);
        if (gate && text && !(await gate(soFar))) {
          this.#closedByGate = true;
          return;
        }
        passed = true;
        if (!liveOnly) await this.#send(text, partial, first);
      })
      .catch(() => undefined)
      .then(() => {
        if (first) this.#held = this.#opens = false;
        if (!liveOnly)
          this.#live?.({ kind: 'sent', ...(first || partial !== undefined ? { wake: true } : {}) });
        else if (first) this.#live?.({ kind: 'sent', wake: true });
        if (liveOnly && gate && text && passed) this.#sayLive(text);
      });
  }

  /** The structured answer parsed so far, when it reads as JSON and changed since the last batch. */
  #partial(text: string): unknown {
    if (!this.#structured) return undefined;
    this.#written += text;
    const partial = parsePartialJson(this.#written);
    if (partial === undefined || typeof partial !== 'object') return undefined;
    const json = JSON.stringify(partial);
    if (json === this.#lastPartial) return undefined;
    this.#lastPartial = json;
    return partial;
  }
}
