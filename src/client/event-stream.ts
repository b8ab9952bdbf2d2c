import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import { EVENTS_QUERY, WAIT_FOR_EVENTS_UPDATE, type AgentEvent, type EventCursor } from '../common/events.ts';

/**
 * Yields a run's events as they happen. Waits with the long-poll update (it answers a small cursor
 * once there are new events), then reads them with the query, which costs no history. When an
 * update cannot be sent (the server's limit of updates in flight) it polls the query instead; once
 * the run has closed it drains the remaining events and ends, rethrowing the run's failure if it failed.
 */
export async function* streamRunEvents(
  handle: WorkflowHandle,
  afterSeq = 0,
  options: StreamOptions = {},
): AsyncGenerator<AgentEvent> {
  const include = options.include ?? (() => true);
  let seq = afterSeq;
  let pollDelay = 50;
  for (;;) {
    const cursor = await (options.abort
      ? Promise.race([waitForEvents(handle, seq), options.abort])
      : waitForEvents(handle, seq));
    // Decided before reading, so that the read below sees every event of a closed run.
    const closed = cursor === 'unavailable' ? await isClosed(handle) : cursor.finished;
    for (const event of await handle.query<AgentEvent[], [number]>(EVENTS_QUERY, seq)) {
      seq = event.seq;
      if (!include(event)) continue;
      yield event;
      // A deep run's phases end with their own run_completed (tagged `phase`); the run ends untagged.
      if (event.type === 'run_completed' && event.payload.phase === undefined) return;
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
