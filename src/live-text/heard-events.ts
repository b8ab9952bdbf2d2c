import type { AgentEvent } from '../common/events.ts';
import type { LiveEventMessage, LiveTextChannel } from './channel.ts';

/** The runs of a workflow whose heard events are kept at most (the one read, the next of a chain). */
const RUNS_KEPT = 4;

/**
 * One reader's side of the runs' events said on a live channel, for one workflow: what the workers
 * said each run logged, by seq, until the reader has read past it. The run's events query stays the
 * truth: the reader takes from here only the events that follow on from the last seq it read, in
 * order, each once ({@link HeardEvents.after}); when one is missing (a lost notification, an event
 * too large for the channel) it reads the run instead. Seq and the run's own log decide: an event
 * heard again for a seq (its workflow task was taken again) replaces the one not yet read.
 */
export class HeardEvents {
  readonly #byRun = new Map<string, Map<number, AgentEvent | undefined>>();
  #runId: string | undefined;
  #news = false;
  #wake: (() => void) | undefined;
  #trusted = false;
  readonly #unsubscribe: (() => void) | undefined;

  constructor(channel: LiveTextChannel, workflowId: string) {
    this.#unsubscribe = channel.subscribeEvents?.(workflowId, (message) => this.#hear(message));
  }

  /**
   * The workers say this workflow's events on the channel: one has been heard, and no read after a
   * silence has found events the channel did not carry since (the run moved to a worker of an
   * earlier version, or on another channel). Until then a reader polls as it would without events
   * on the channel (a channel without `subscribeEvents`, a worker with `liveChannel: false`).
   */
  get trusted(): boolean {
    return this.#trusted;
  }

  /** The run of the workflow read now (a chain moves on to the next run). */
  follow(runId: string): void {
    if (runId === this.#runId) return;
    if (this.#runId !== undefined) this.#byRun.delete(this.#runId);
    this.#runId = runId;
    this.#news = this.#byRun.has(runId);
  }

  /**
   * The events heard that follow on from `seq` in the run read, in order (forgetting those up to
   * it); `gap` when events after `seq` were heard but not the next one, or the next one's seq came
   * alone (too large for the channel): the run must be read.
   */
  after(seq: number): AgentEvent[] | 'gap' {
    const heard = this.#runId === undefined ? undefined : this.#byRun.get(this.#runId);
    if (!heard) return [];
    for (const known of heard.keys()) if (known <= seq) heard.delete(known);
    const events: AgentEvent[] = [];
    for (let next = seq + 1; ; next++) {
      const event = heard.get(next);
      if (!event) break;
      events.push(event);
    }
    return events.length === 0 && heard.size > 0 ? 'gap' : events;
  }

  /** A read after the channel had been silent found events it never carried: poll again. */
  distrust(): void {
    this.#trusted = false;
  }

  /** Resolves once an event of the run read has been heard ({@link HeardEvents.take} says so). */
  changed(): Promise<void> {
    if (this.#news) return Promise.resolve();
    return new Promise((resolve) => (this.#wake = resolve));
  }

  /** Whether an event of the run read has been heard since the last call. */
  take(): boolean {
    const news = this.#news;
    this.#news = false;
    return news;
  }

  close(): void {
    this.#unsubscribe?.();
    this.#wake = undefined;
  }

  #hear({ runId, seq, event }: LiveEventMessage): void {
    if (typeof runId !== 'string' || !Number.isInteger(seq)) return;
    let heard = this.#byRun.get(runId);
    if (!heard) {
      this.#byRun.set(runId, (heard = new Map<number, AgentEvent | undefined>()));
      // The oldest runs go (runs before the one read have closed).
      for (const other of this.#byRun.keys()) {
        if (this.#byRun.size <= RUNS_KEPT) break;
        if (other !== this.#runId) this.#byRun.delete(other);
      }
    }
    heard.set(seq, event && event.seq === seq ? event : undefined);
    this.#trusted = true;
    if (runId !== this.#runId) return;
    this.#news = true;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
