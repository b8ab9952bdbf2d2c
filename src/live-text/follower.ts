import type { AgentEvent } from '../common/events.ts';
import type { LiveTextChannel, LiveTextMessage } from './channel.ts';

/** The text one attempt of one model step said live, as heard. */
interface HeardStep {
  runId: string;
  seq: number;
  attempt: number;
  /** Where the text heard starts in the step's text (a reader that subscribed late missed the start); undefined: none heard. */
  start: number | undefined;
  text: string;
  /** A message went missing (its offset did not follow on): the step is read from the run only. */
  broken: boolean;
  /** The step's first batch says something first (the step starts with it): not delivered before it is sent. */
  held: boolean;
  /** It was held when first heard: it starts at a step boundary read after that. */
  startsHeld: boolean;
  /** A run's first step whose first batch only starts it: shown at once to a reader at the run's start. */
  opens: boolean;
  /** The read (by count) that must have finished before the step's text is delivered live. */
  afterRead: number;
  /** The step boundaries read when it was first heard: a held step starts at a later one. */
  boundaries: number;
  closed: boolean;
}

/**
 * What a reader wants after a message: a read of the run, to deliver text, or a read soon: the step
 * delivered live has closed (its result, or the run's end, follows).
 */
export type LiveWake = 'read' | 'closed' | 'text';

/** Which of two wakes asks for more (a read over a read soon over text). */
const WAKE_RANK: Record<LiveWake, number> = { text: 0, closed: 1, read: 2 };

/**
 * One reader's side of a live channel, for one workflow: it hears the model steps' text as it is
 * written and merges it with the run's events as read (the durable record) into one stream, with no
 * text twice and none missed.
 *
 * The events are the truth. Every event read passes through {@link LiveTextFollower.read}, which
 * keeps the text of the step in flight as the events said it; a step heard live is delivered
 * (bound) once the events read reach its start and what they said of its text begins what was
 * heard, and from then on its text is delivered as heard ({@link LiveTextFollower.heard}) and the
 * batches that say it again are trimmed. A reader that starts in the middle of a step (it resumed)
 * does not know where the step's text began: that step is read from the events only. Delivered
 * text is a `text_delta` at the seq of the last event read, whose cursor `<seq>.<chars>` names
 * the characters of the step's text said after that event (a reader resumes exactly there).
 */
export class LiveTextFollower {
  readonly #steps = new Map<string, HeardStep>();
  #runId: string | undefined;
  /** The step in flight as the events said it: its text so far (undefined: its start was not read), attempt (0: none yet), tags. */
  #text: string | undefined;
  #attempt = 0;
  #tags: Record<string, unknown> = {};
  #boundaries = 0;
  #readsStarted = 0;
  #readsDone = 0;
  /** The step delivered live, and how much of its text has been delivered (by the events or live). */
  #bound: { step: HeardStep; delivered: number; early?: boolean } | undefined;
  #wake: (() => void) | undefined;
  #pending: LiveWake | undefined;
  readonly #unsubscribe: () => void;

  /** `tags`: those of the events read (a chat turn's `turn_id`), for text heard before any event says them. */
  constructor(channel: LiveTextChannel, workflowId: string, tags: Record<string, unknown> = {}) {
    this.#tags = tags;
    this.#unsubscribe = channel.subscribe(workflowId, (message) => this.#hear(message));
  }

  /** The run of the workflow read now (a chain moves on to the next run). */
  follow(runId: string): void {
    if (runId === this.#runId) return;
    this.#runId = runId;
    this.#bound = undefined;
  }

  /** The reader reads the run's events from its start (or from a step boundary): the step text is known. */
  fromStart(): void {
    this.#text = '';
  }

  /** A step is delivered live and has not finished writing: the reader need not poll while it writes. */
  get streaming(): boolean {
    return this.#bound !== undefined && !this.#bound.step.closed;
  }

  /** Resolves once a message asks the reader for something ({@link LiveTextFollower.take} says what). */
  changed(): Promise<void> {
    if (this.#pending) return Promise.resolve();
    return new Promise((resolve) => (this.#wake = resolve));
  }

  /** What the messages since the last call ask for: a read of the run, text to deliver, or nothing. */
  take(): LiveWake | undefined {
    const why = this.#pending;
    this.#pending = undefined;
    return why;
  }

  /** A read of the run's events starts (what was heard before it is in what it reads). */
  readStarted(): void {
    this.#readsStarted += 1;
  }

  /** The read's events are all through {@link read}: a step heard may now be delivered live. */
  readDone(): void {
    this.#readsDone = this.#readsStarted;
    this.#bind();
  }

  /** An event as read: itself, its text trimmed of what was delivered live, or undefined (all of it was). */
  read(event: AgentEvent): AgentEvent | undefined {
    const shown = this.#read(event);
    // Read while the text delivered live is ahead of the batches: a reader resuming after this
    // event must skip that text too (`<seq>.<chars>`).
    const ahead = shown && this.#bound ? this.#bound.delivered - (this.#text?.length ?? 0) : 0;
    return ahead > 0 ? { ...shown!, cursor: `${shown!.seq}.${ahead}` } : shown;
  }

  #read(event: AgentEvent): AgentEvent | undefined {
    if (event.type === 'step_started') {
      this.#boundaries += 1;
      this.#text = '';
      this.#attempt = 0;
      this.#tags = tagsOf(event.payload);
      // The run's first step shown before its start: this is its start.
      if (this.#bound?.early) this.#bound.early = false;
      else this.#bound = undefined;
      return event;
    }
    if (event.type !== 'text_delta' || this.#text === undefined) return event;
    const attempt = typeof event.payload.attempt === 'number' ? event.payload.attempt : 1;
    const text = typeof event.payload.text === 'string' ? event.payload.text : '';
    // Text of an attempt before the one that writes now (a stopped attempt's, recorded late) is not the step's.
    if (attempt < this.#attempt) return this.#bound ? undefined : event;
    if (attempt > this.#attempt) {
      // A step taken again writes anew (its first attempt's text may have been read already).
      if (this.#attempt !== 0) this.#boundaries += 1;
      this.#attempt = attempt;
      this.#text = '';
      this.#tags = tagsOf(event.payload);
      if (this.#bound && this.#bound.step.attempt !== attempt) this.#bound = undefined;
    }
    const at = this.#text.length;
    this.#text += text;
    const bound = this.#bound;
    if (!bound) return event;
    const end = at + text.length;
    if (bound.delivered >= end) return undefined;
    const shown = bound.delivered > at ? text.slice(bound.delivered - at) : text;
    bound.delivered = end;
    return shown === text ? event : { ...event, payload: { ...event.payload, text: shown } };
  }

  /** The text heard for the step delivered live and not delivered yet, as an event after `seq`. */
  heard(seq: number): AgentEvent | undefined {
    const bound = this.#bound;
    const start = bound?.step.start ?? 0;
    if (!bound || start + bound.step.text.length <= bound.delivered || this.#text === undefined)
      return undefined;
    const text = bound.step.text.slice(bound.delivered - start);
    bound.delivered = start + bound.step.text.length;
    return {
      seq,
      type: 'text_delta',
      message: 'The model is writing',
      payload: { ...this.#tags, text, attempt: bound.step.attempt },
      timestamp: new Date().toISOString(),
      cursor: `${seq}.${bound.delivered - this.#text.length}`,
    };
  }

  close(): void {
    this.#unsubscribe();
    this.#wake = undefined;
  }

  #hear(message: LiveTextMessage): void {
    const key = `${message.runId}:${message.seq}:${message.attempt}`;
    let step = this.#steps.get(key);
    if (!step) {
      // Only the newest step of a run matters: the ones before it have finished writing.
      for (const [other, old] of this.#steps) if (old.runId === message.runId) this.#steps.delete(other);
      step = {
        runId: message.runId,
        seq: message.seq,
        attempt: message.attempt,
        start: undefined,
        text: '',
        broken: false,
        held: message.kind === 'text' && message.held === true,
        startsHeld: message.kind === 'text' && message.held === true,
        opens: message.kind === 'text' && message.opens === true,
        afterRead: this.#readsStarted + 1,
        boundaries: this.#boundaries,
        closed: false,
      };
      this.#steps.set(key, step);
    }
    const bound = this.#bound?.step === step;
    switch (message.kind) {
      case 'text': {
        if (step.broken) return;
        const heard = take(step, message, bound);
        if (heard === 'gap') step.broken = true;
        if (heard !== 'more') return;
        if (bound) return this.#signal('text');
        if (step.held) return step.opens ? this.#bind() : undefined; // else shown once its first batch is sent
        // Not delivered yet: a read up to the step's start, then it is (one read, not one per piece).
        if (this.#readsStarted < step.afterRead) return this.#signal('read');
        if (this.#readsDone >= step.afterRead) this.#bind();
        return;
      }
      case 'sent':
        if (step.held) {
          // The batch that starts the step has been sent: a read from now on shows the step.
          step.held = false;
          step.afterRead = this.#readsStarted + 1;
          return this.#signal('read');
        }
        // Text not delivered live is read as the batches arrive; a batch with more than text is read.
        if (!bound || message.wake) this.#signal('read');
        return;
      case 'closed':
        step.closed = true;
        // The step's result follows: its events (calls, the answer) are read as before.
        return this.#signal(bound ? 'closed' : 'read');
    }
  }

  /** Delivers the newest step heard live once the events read reach its start and agree with its text. */
  #bind(): void {
    if (this.#text === undefined) return;
    let newest: HeardStep | undefined;
    for (const step of this.#steps.values()) if (step.runId === this.#runId) newest = step;
    if (!newest || newest.broken) return;
    if (this.#bound) {
      // A step taken again (its worker died): the new attempt is delivered from its start, under
      // its attempt (readers drop the old one's text).
      const old = this.#bound.step;
      const retried = newest.seq === old.seq && newest.attempt > old.attempt;
      if (!retried || this.#bound.early) return;
      this.#bound = undefined;
    }
    if (this.#retriedAfterItsStart(newest)) {
      // What the events said of the step is the attempt before's: the new one writes it anew.
      if (this.#attempt !== 0) this.#boundaries += 1;
      this.#attempt = newest.attempt;
      this.#text = '';
      this.#bound = { step: newest, delivered: 0 };
      return this.#signal('text');
    }
    if (newest.held && newest.opens && newest.start === 0 && this.#text === '' && this.#boundaries === 0) {
      // The run's first step, to a reader that has read the run's start: shown now, its start follows.
      if (this.#readsDone === 0) return;
      this.#bound = { step: newest, delivered: 0, early: true };
      return this.#signal('text');
    }
    if (newest.held || this.#readsDone < newest.afterRead) return;
    // A step whose first batch says something first starts at a boundary read after it was heard.
    if (newest.startsHeld && this.#boundaries <= newest.boundaries) return;
    if (this.#attempt !== 0 && this.#attempt !== newest.attempt) return;
    // What the events said of the step's text reaches where hearing it began, and agrees with it.
    const start = newest.start;
    if (start === undefined || this.#text.length < start) return;
    if (!newest.text.startsWith(this.#text.slice(start))) return;
    this.#bound = { step: newest, delivered: this.#text.length };
    if (start + newest.text.length > this.#text.length) this.#signal('text');
  }

  /**
   * A step taken again (its worker died or missed a heartbeat) after the events read its start and
   * maybe what an attempt before wrote (a stopped attempt's text goes to the workflow). The run's
   * first step is held in every attempt, though only the first can say its start: it qualifies
   * once the one step start read is its own.
   */
  #retriedAfterItsStart(step: HeardStep): boolean {
    if (step.start !== 0) return false;
    if (step.held) return step.opens && this.#boundaries === 1 && step.attempt > Math.max(this.#attempt, 1);
    return this.#attempt !== 0 && step.attempt > this.#attempt && this.#readsDone >= step.afterRead;
  }

  #signal(why: LiveWake): void {
    if (!this.#pending || WAKE_RANK[why] > WAKE_RANK[this.#pending]) this.#pending = why;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/**
 * Adds a piece of text to what was heard of its step: `more` when it adds text, `known` when it
 * says what was heard already (a channel gave the text so far, then the piece again), `gap` when
 * text between them was missed. The text so far may start before what was heard (a reader that
 * heard the step from its middle, then got its text so far), unless it is being delivered.
 */
function take(
  step: HeardStep,
  { offset, text }: { offset: number; text: string },
  bound: boolean,
): 'more' | 'known' | 'gap' {
  if (step.start === undefined) {
    step.start = offset;
    step.text = text;
    return 'more';
  }
  const end = offset + text.length;
  if (offset > step.start + step.text.length || end < step.start) return 'gap';
  let more = false;
  if (offset < step.start && !bound) {
    step.text = text.slice(0, step.start - offset) + step.text;
    step.start = offset;
    more = true;
  }
  const heardTo = step.start + step.text.length;
  if (end > heardTo) {
    step.text += text.slice(heardTo - offset);
    more = true;
  }
  return more ? 'more' : 'known';
}

/** The tags of a step's events (`turn_id`, `phase`, ...): its payload without the event's own keys. */
function tagsOf(payload: Record<string, unknown>): Record<string, unknown> {
  const { iteration: _iteration, text: _text, attempt: _attempt, ...tags } = payload;
  return tags;
}
