import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { EVENTS_QUERY, WAIT_FOR_EVENTS_UPDATE, type AgentEvent, type EventCursor } from '../common/events.ts';

/**
 * Yields a run's events as they happen. Waits with the long-poll update (it answers a small cursor
 * once there are new events), then reads them with the query, which costs no history. While the
 * model writes (the latest event is a `text_delta`) it reads with the query alone every
 * {@link LIVE_TEXT_POLL_MS}, since a long-poll per batch of text would add two history events and a
 * workflow task each time. When an update cannot be sent (the server's limit of updates in flight)
 * it polls the query instead; once the run has closed it drains the remaining events and ends,
 * rethrowing the run's failure if it failed.
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
    const closed = cursor === 'unavailable' ? await isClosed(handle) : cursor !== 'live' && cursor.finished;
    for (const event of await handle.query<AgentEvent[], [number]>(EVENTS_QUERY, seq)) {
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
}

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

async function waitForEvents(handle: WorkflowHandle, afterSeq: number): Promise<EventCursor | 'unavailable'> {
  try {
    return await handle.executeUpdate<EventCursor, [number]>(WAIT_FOR_EVENTS_UPDATE, { args: [afterSeq] });
  } catch {
    return 'unavailable';
  }
}

async function isClosed(handle: WorkflowHandle): Promise<boolean> {
  const { status } = await handle.describe();
  return status.name !== 'RUNNING';
}
