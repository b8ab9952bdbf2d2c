import { setTimeout as sleep } from 'node:timers/promises';
import {
  QueryNotRegisteredError,
  QueryRejectedError,
  WorkflowContinuedAsNewError,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { failedRunEvents } from './failed-run.ts';
import { closedRunEvents, eventsAfter, type AgentEvent, type ClosedRunEvents } from '../common/events.ts';
import { eventsQuery } from '../common/workflow-definitions.ts';
import type { LiveTextChannel } from '../live-text/channel.ts';
import { LiveTextFollower } from '../live-text/follower.ts';
import { HeardEvents } from '../live-text/heard-events.ts';

/**
 * Yields a run's events as they happen, read with the events query (which costs the run no history):
 * again {@link FIRST_POLL_MS} after new events, then less and less often while none come, at least
 * once every {@link IDLE_POLL_MS}, and every {@link LIVE_TEXT_POLL_MS} while the model writes; while
 * the text of a step is heard on the live channel, only once the step has closed or when the channel
 * has been silent for {@link SILENT_CHANNEL_MS}. Once the run's events are heard on the channel (its
 * workers say them there), they are taken from it, in seq order and once each, and the run is read
 * only when one is missing or the channel has been silent for {@link QUIET_CHANNEL_MS}. The
 * run's end is awaited with the server's long-poll for the result. Each run of a chain (a chat session
 * continues as new) is read by its id until it has closed and its last events are read, then the next;
 * once the last run has closed the stream ends, rethrowing the run's failure if it failed. A query
 * that fails or hangs on a dead worker's sticky queue is asked again, not thrown. A run that closed
 * with a result is finished from the events its result carries: no query, so no worker is needed,
 * and a query still waiting on a dead worker is dropped the moment the result arrives.
 *
 * Readers send no update: any number of them can follow a run without counting against Temporal's
 * limits of 2,000 updates per run and 10 in flight, without adding two history events and a workflow
 * task per wake-up, and without an update arriving in the workflow task after one that timed out (a
 * worker died), the case where the SDK's replay has had ordering bugs. The workflows keep the
 * `toolkit.waitForEvents` update that earlier versions of this client sent, so their histories and
 * readers keep working.
 */
export async function* streamRunEvents(
  handle: WorkflowHandle,
  afterSeq = 0,
  options: StreamOptions = {},
): AsyncGenerator<AgentEvent> {
  const include = options.include ?? (() => true);
  let seq = afterSeq;
  let tail: ClosedRunEvents | undefined;
  let tailKnown = false;
  const tailed = (options.tail ?? new Promise<never>(() => undefined)).then((log) => {
    tail = log;
    tailKnown = true;
  });
  const stopWaiting = new AbortController();
  const live = options.live
    ? new LiveTextFollower(options.live, handle.workflowId, options.liveTags)
    : undefined;
  // The run's events as the workers say them: taken from the channel instead of asked for.
  const heard = options.live ? new HeardEvents(options.live, handle.workflowId) : undefined;
  if (afterSeq === 0 || options.atStepBoundary) live?.fromStart();
  const ask = <T>(call: () => Promise<T>): Promise<T> => {
    const work = retried(handle.client, call, stopWaiting.signal);
    // A read dropped for the run's result (or an abort) must not leave an unhandled rejection behind.
    work.catch(() => undefined);
    return options.abort ? Promise.race([work, options.abort]) : work;
  };
  /**
   * One run of the chain, pinned by its id, and the server's long-poll for its end: the events a run
   * logged before it continued as new are read from that run, not missed in the next one.
   */
  const follow = (runId: string) => {
    const run = {
      handle: handle.client.getHandle(handle.workflowId, runId, { followRuns: false }),
      end: undefined as RunEnd | undefined,
      ended: Promise.resolve() as Promise<unknown>,
    };
    run.ended = runEnd(run.handle, stopWaiting.signal).then((end) => (run.end = end));
    live?.follow(runId);
    heard?.follow(runId);
    return run;
  };
  try {
    let run = follow(options.runId ?? (await ask(() => handle.describe())).runId);
    // What ends a wait for the run: its close, the turn's answer (until known), the reader's abort.
    const runEnds = () => [
      run.ended,
      ...(tailKnown ? [] : [tailed]),
      ...(options.abort ? [options.abort] : []),
    ];
    let readAgain = false;
    // How the next read is made: asking the run (at the start, after a silence, on a gap), or from
    // the events heard on the channel (`silence`: the read follows a silence of the channel).
    let next: 'ask' | 'silence' | 'heard' = 'ask';
    let lastType: AgentEvent['type'] | undefined;
    // The next read from the channel stands for a read of the run even with nothing new: the run's
    // last event read is a step's start, and that step's text is heard (its start is all there is).
    let emptyRead = false;
    // The end heard on the channel has been waited for (the run's close or the turn's answer).
    let endAwaited = false;
    for (let delay = FIRST_POLL_MS; ;) {
      // Decided before reading, so that the read below sees every event of a closed run.
      const end = run.end;
      // A closed run's result (a chat turn's answer) carries its events: read them there, with no
      // worker (none may be alive), and whichever run of a chain the reader followed.
      const fromResult = eventsAfter(end?.events, seq);
      const fromTail = fromResult ? undefined : eventsAfter(tail, seq);
      // Heard events that follow on from the last read are read from the channel; else the run is asked.
      const heardNow = fromResult || fromTail || next !== 'heard' ? undefined : heard?.after(seq);
      // The last event is said on the channel before Temporal has the task that logged it: it is read
      // from the run (its result, the turn's answer, or else a query, which Temporal answers once that
      // task is in), so that a reader at the end finds the run ended, not still running. The events
      // before it are delivered.
      const endAt = Array.isArray(heardNow) ? heardNow.findIndex((e) => isTerminal(e) && include(e)) : -1;
      if (endAt === 0 && !endAwaited) {
        // The run's result (or the turn's answer) carries it a moment later, with no query left behind.
        endAwaited = true;
        await Promise.race([sleep(AFTER_CLOSE_MS), ...runEnds()]);
        next = 'ask';
        continue;
      }
      const fromChannel = endAt < 0 ? heardNow : endAt > 0 ? heardNow!.slice(0, endAt) : undefined;
      const afterSilence = next === 'silence';
      // Nothing new heard (an event read already): no read, so no step heard live is bound on it.
      const nothingNew = next === 'heard' && Array.isArray(fromChannel) && fromChannel.length === 0;
      next = 'ask';
      if (!nothingNew || emptyRead) live?.readStarted();
      let events = fromResult ?? fromTail ?? (Array.isArray(fromChannel) ? fromChannel : undefined);
      if (!events) {
        const asked = Promise.race([
          ask(() => run.handle.query(eventsQuery, seq)),
          // A query waiting on a dead worker is dropped as soon as the result arrives.
          ...(end ? [] : [run.ended.then(() => undefined)]),
          ...(tailKnown ? [] : [tailed.then(() => undefined)]),
        ]);
        if (live) {
          // Text heard while the run is read is delivered meanwhile, at the place read so far.
          const answered = asked.then(
            () => true,
            () => true,
          );
          while (!(await Promise.race([answered, live.changed().then(() => false)]))) {
            if (live.take() === 'read') readAgain = true;
            const text = live.heard(seq);
            if (text && include(text)) yield text;
          }
        }
        events = await asked;
        // The channel was silent while the run logged events: it does not carry them (now).
        if (afterSilence && events?.length) heard?.distrust();
      }
      if (events === undefined) continue;
      for (const read of events) {
        seq = read.seq;
        lastType = read.type;
        // Text delivered live already is not delivered again.
        const event = live ? live.read(read) : read;
        if (!event || !include(event)) continue;
        yield event;
        // A deep run's phases end with their own run_completed (tagged `phase`); the run ends untagged,
        // with run_completed, or with run_cancelled when it was cancelled or passed its deadline.
        if (isTerminal(event)) return;
      }
      if (fromTail) return; // everything the answer carried was read: the turn is over
      if (end?.continuedTo) {
        run = follow(end.continuedTo);
        continue;
      }
      if (end) {
        // Closed without run_completed: the run failed, was cancelled or terminated. Say why.
        await run.handle.result();
        return;
      }
      if (!nothingNew || emptyRead) live?.readDone();
      emptyRead = false;
      // The end was heard after the events just delivered: it is read next (above).
      if (endAt > 0) {
        next = 'heard';
        continue;
      }
      const last = events.at(-1);
      // The channel says the run's events: it is read when the channel has been silent long. A step
      // whose text is delivered live needs no reading while it writes: the channel says when it
      // ends (or a batch carries more than text).
      const trusted = heard?.trusted === true;
      delay = trusted
        ? QUIET_CHANNEL_MS
        : live?.streaming
          ? SILENT_CHANNEL_MS
          : !last
            ? Math.min(delay * 2, IDLE_POLL_MS)
            : last.type === 'text_delta'
              ? LIVE_TEXT_POLL_MS
              : FIRST_POLL_MS;
      const ends = runEnds();
      const quiet = timer(delay);
      // With the events on the channel, a step heard live right after its start is read from it
      // (nothing to ask: its start is the last event, and the channel says what follows).
      const atItsStart = trusted && lastType === 'step_started';
      // A message asked for a read while the last one was under way: read again now.
      const readNow = readAgain && (!trusted || atItsStart);
      if (readNow && trusted) [next, emptyRead] = ['heard', true];
      readAgain = false;
      let waited = readNow ? Promise.resolve() : Promise.race([quiet.done, ...ends]);
      try {
        for (;;) {
          const text = live?.heard(seq);
          if (text && include(text)) yield text;
          // Text heard live is delivered as it comes; anything else (a batch with more, the step's end) is read.
          const timedOut = await Promise.race([
            waited.then(() => true),
            ...(live ? [live.changed().then(() => false)] : []),
            ...(heard ? [heard.changed().then(() => false)] : []),
          ]);
          if (heard?.take()) {
            next = 'heard';
            break;
          }
          const why = live?.take();
          if (why === 'text' && live?.streaming) quiet.restart();
          else if (why === 'closed') {
            // The step delivered live has closed: its result is read a moment later, once the
            // workflow has it, unless the run ends meanwhile (its end carries the last events),
            // or the channel says its events.
            if (!trusted) waited = Promise.race([sleep(AFTER_CLOSE_MS), ...ends]);
          } else if (why === 'read' && trusted) {
            // Text of a step not yet delivered: its start is read from the channel.
            if (lastType === 'step_started') {
              [next, emptyRead] = ['heard', true];
              break;
            }
          } else if (why !== 'text' || timedOut) {
            if (timedOut && !readNow && trusted && run.end === undefined) next = 'silence';
            break;
          }
        }
      } finally {
        quiet.stop();
      }
    }
  } finally {
    live?.close();
    heard?.close();
    // A read still in flight (dropped for the run's result) is cancelled, and a retry stops asking:
    // none may outlive the stream (and its client's connection, which may close next).
    stopWaiting.abort();
  }
}

/** How long a worker may take to answer a query before we ask again. */
const CALL_DEADLINE_MS = 10_000;

/** The next read after new events; each read that finds none doubles the wait, up to {@link IDLE_POLL_MS}. */
const FIRST_POLL_MS = 50;
/** The longest a reader waits between reads: the most an event can lag behind the run. */
const IDLE_POLL_MS = 1000;
/** How often a reader reads while the model writes (its text not heard live). */
export const LIVE_TEXT_POLL_MS = 100;
/** While a step's text is heard live, the run is read only when the channel has been silent this long. */
const SILENT_CHANNEL_MS = 5_000;
/** With the run's events heard on the channel, the run is read only when it has been silent this long. */
const QUIET_CHANNEL_MS = 15_000;
/** How long after a step heard live has closed, or the run's end was heard, the run is read (the workflow takes it meanwhile). */
const AFTER_CLOSE_MS = 250;

/** A wait of `ms` that can start again (at each piece of text heard) and be stopped. */
function timer(ms: number): { done: Promise<void>; restart(): void; stop(): void } {
  let handle: ReturnType<typeof setTimeout> | undefined;
  const done = new Promise<void>((resolve) => (handle = setTimeout(resolve, ms)));
  return { done, restart: () => handle?.refresh(), stop: () => clearTimeout(handle) };
}

/** The last event of a run or chat turn (not of a deep run's phase, nor of a sub-agent run woven in). */
export function isTerminal(event: AgentEvent): boolean {
  return (
    (event.type === 'run_completed' || event.type === 'run_cancelled') &&
    event.payload.phase === undefined &&
    event.payload.sub_run === undefined
  );
}

/** Where a reader of a run's events starts: after a seq of the run's own, or after an event's `cursor`. */
export interface EventsFrom {
  afterSeq?: number;
  /** An event's `cursor` (`12`, `12/3`): the events after it, sub-agents' included. */
  after?: string;
}

export interface StreamOptions {
  /** Only these events are yielded (and only their `run_completed` ends the stream): a chat turn's own. */
  include?: (event: AgentEvent) => boolean;
  /**
   * The run to read first, when the caller has just started it (an agent run): spares asking the
   * server which run of the chain is current. A chain is followed from it as from any run.
   */
  runId?: string;
  /** Rejecting ends the stream with that error (a chat turn whose update failed). */
  abort?: Promise<never>;
  /**
   * Resolves with the followed events as they ended (a chat turn's answer carries its own): the
   * stream then finishes from them, without another query (undefined: read on as before).
   */
  tail?: Promise<ClosedRunEvents | undefined>;
  /**
   * Where the workers say the model's text as it is written, and the run's events as they are
   * logged (src/live-text/): heard text and events are delivered at once and the run is read far
   * less often. Default: none (poll).
   */
  live?: LiveTextChannel | undefined;
  /** The events after `afterSeq` start at a step (a chat turn's first): its live text can be delivered. */
  atStepBoundary?: boolean;
  /** The tags of the events read (a chat turn's `turn_id`), for live text heard before an event says them. */
  liveTags?: Record<string, unknown>;
}

/**
 * How a run of the chain ended: continued as new (in the run named), or closed for good, with the
 * events its result carries (runs of this version that returned a result).
 */
interface RunEnd {
  continuedTo?: string;
  events?: ClosedRunEvents;
}

/** Resolves once the (pinned) run has closed, however it ended; a lost connection is asked again. */
async function runEnd(run: WorkflowHandle, signal: AbortSignal): Promise<RunEnd> {
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    try {
      const result: unknown = await run.client.withAbortSignal(signal, () => run.result());
      const events = closedRunEvents(result);
      return events ? { events } : {};
    } catch (error) {
      if (error instanceof WorkflowContinuedAsNewError) return { continuedTo: error.newExecutionRunId };
      if (error instanceof WorkflowFailedError) {
        const events = failedRunEvents(error);
        return events ? { events } : {};
      }
      if (signal.aborted || error instanceof WorkflowNotFoundError) return {};
      await sleep(delay);
    }
  }
}

/**
 * `call`, each attempt bounded by {@link CALL_DEADLINE_MS}, asked again after a failure (a worker
 * that died, a server restarting) with a back-off of up to a second, until `stop` aborts (which also
 * cancels the attempt in flight). Only answers that cannot change by asking again are thrown: no
 * such run, no such query, a rejected query.
 */
async function retried<T>(
  client: WorkflowHandle['client'],
  call: () => Promise<T>,
  stop: AbortSignal,
): Promise<T> {
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await cancelledOn(stop, (signal) =>
        client.withAbortSignal(signal, () => client.withDeadline(Date.now() + CALL_DEADLINE_MS, call)),
      );
    } catch (error) {
      if (
        stop.aborted ||
        error instanceof WorkflowNotFoundError ||
        error instanceof QueryNotRegisteredError ||
        error instanceof QueryRejectedError
      )
        throw error;
      await sleep(delay);
    }
  }
}

/**
 * `work` with a signal of its own that `stop` aborts: Temporal's connection adds an abort listener
 * per call and never removes it, so each call gets a fresh signal, and `stop` holds one listener at a time.
 */
async function cancelledOn<T>(stop: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const attempt = new AbortController();
  const cancel = () => attempt.abort();
  if (stop.aborted) cancel();
  stop.addEventListener('abort', cancel, { once: true });
  try {
    return await work(attempt.signal);
  } finally {
    stop.removeEventListener('abort', cancel);
  }
}
