import { setTimeout as sleep } from 'node:timers/promises';
import { QueryNotRegisteredError, QueryRejectedError, type WorkflowHandle } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { EVENTS_QUERY, WAIT_FOR_EVENTS_UPDATE, type AgentEvent, type EventCursor } from '../common/events.ts';

/**
 * Yields a run's events as they happen. Waits with the long-poll update (it answers a small cursor
 * once there are new events), then reads them with the query, which costs no history. While the
 * model writes (the latest event is a `text_delta`) it reads with the query alone every
 * {@link LIVE_TEXT_POLL_MS}, since a long-poll per batch of text would add two history events and a
 * workflow task each time. When an update cannot be sent (the server's limit of updates in flight)
 * (or no worker accepts it in time: a worker died under it) it polls the query instead; once the
 * run has closed it drains the remaining events and ends, rethrowing the run's failure if it failed.
 * A query or describe that fails or hangs on a dead worker's sticky queue is asked again, not thrown.
 */
export async function* streamRunEvents(
  handle: WorkflowHandle,
  afterSeq = 0,
  options: StreamOptions = {},
): AsyncGenerator<AgentEvent> {
  const include = options.include ?? (() => true);
  let seq = afterSeq;
  let pollDelay = 50;
  /** Query polls left before going back to the long-poll (while text streams). */
  let livePolls = 0;
  let ended = false;
  const ask = <T>(call: () => Promise<T>): Promise<T> => {
    const work = retried(call, handle, () => ended);
    return options.abort ? Promise.race([work, options.abort]) : work;
  };
  try {
    for (;;) {
      let cursor: EventCursor | 'unavailable' | 'live';
      if (livePolls > 0) {
        livePolls -= 1;
        await (options.abort
          ? Promise.race([sleep(LIVE_TEXT_POLL_MS), options.abort])
          : sleep(LIVE_TEXT_POLL_MS));
        cursor = 'live';
      } else {
        cursor = await (options.abort
          ? Promise.race([waitForEvents(handle, seq), options.abort])
          : waitForEvents(handle, seq));
      }
      // Decided before reading, so that the read below sees every event of a closed run.
      const closed =
        cursor === 'unavailable' ? await ask(() => isClosed(handle)) : cursor !== 'live' && cursor.finished;
      for (const event of await ask(() => handle.query<AgentEvent[], [number]>(EVENTS_QUERY, seq))) {
        seq = event.seq;
        // Text is streaming: read by query for a while (each new delta extends it).
        livePolls = event.type === 'text_delta' ? LIVE_TEXT_POLLS : 0;
        if (!include(event)) continue;
        yield event;
        // A deep run's phases end with their own run_completed (tagged `phase`); the run ends untagged,
        // with run_completed, or with run_cancelled when it was cancelled or passed its deadline.
        if (isTerminal(event)) return;
      }
      if (closed) {
        // Closed without run_completed: the run failed, was cancelled or terminated. Say why.
        await handle.result();
        return;
      }
      if (cursor === 'unavailable') {
        await sleep(pollDelay);
        pollDelay = Math.min(pollDelay * 2, 1000);
      }
    }
  } finally {
    ended = true; // a retry still waiting stops asking
  }
}

/** How long a worker may take to accept the long-poll update, or to answer a query, before we ask again. */
const CALL_DEADLINE_MS = 10_000;

/** How often a reader reads by query while the model writes. */
export const LIVE_TEXT_POLL_MS = 100;
/** After the last `text_delta`, query reads go on this many times (1 s) before the long-poll resumes. */
const LIVE_TEXT_POLLS = 10;

/** The last event of a run or chat turn. */
export function isTerminal(event: AgentEvent): boolean {
  return (
    (event.type === 'run_completed' || event.type === 'run_cancelled') && event.payload.phase === undefined
  );
}

export interface StreamOptions {
  /** Only these events are yielded (and only their `run_completed` ends the stream): a chat turn's own. */
  include?: (event: AgentEvent) => boolean;
  /** Rejecting ends the stream with that error (a chat turn whose update failed). */
  abort?: Promise<never>;
}

/**
 * The long-poll update: accepted by a worker within {@link CALL_DEADLINE_MS} (else 'unavailable':
 * the reader polls instead), then awaited as long as it takes. An accepted update survives its
 * worker: it is in history, and the next worker answers it.
 */
async function waitForEvents(handle: WorkflowHandle, afterSeq: number): Promise<EventCursor | 'unavailable'> {
  try {
    const update = await handle.client.withDeadline(Date.now() + CALL_DEADLINE_MS, () =>
      handle.startUpdate<EventCursor, [number]>(WAIT_FOR_EVENTS_UPDATE, {
        args: [afterSeq],
        waitForStage: 'ACCEPTED',
      }),
    );
    return await update.result();
  } catch {
    return 'unavailable';
  }
}

/**
 * `call`, each attempt bounded by {@link CALL_DEADLINE_MS}, asked again after a failure (a worker
 * that died, a server restarting) with a back-off of up to a second, until `stopped()`. Only answers
 * that cannot change by asking again are thrown: no such run, no such query, a rejected query.
 */
async function retried<T>(
  call: () => Promise<T>,
  handle: WorkflowHandle,
  stopped: () => boolean,
): Promise<T> {
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    try {
      return await handle.client.withDeadline(Date.now() + CALL_DEADLINE_MS, call);
    } catch (error) {
      if (
        stopped() ||
        error instanceof WorkflowNotFoundError ||
        error instanceof QueryNotRegisteredError ||
        error instanceof QueryRejectedError
      )
        throw error;
      await sleep(delay);
    }
  }
}

async function isClosed(handle: WorkflowHandle): Promise<boolean> {
  const { status } = await handle.describe();
  return status.name !== 'RUNNING';
}
