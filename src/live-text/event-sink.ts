import type { InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { AgentEvent } from '../common/events.ts';
import type { LiveTextChannel } from './channel.ts';
import type { LiveEventSinks } from './message.ts';

/**
 * The worker's end of the events sink of the agent workflows: each event a workflow task logged
 * is said on the live channel, keyed by the run and its seq, once the task's code has run and
 * before the worker reports the task done. Temporal does not call it while a workflow replays, so
 * a run moved to another worker does not say its past events again. A channel without
 * `publishEvent` (or none) drops them: readers then poll.
 */
export function liveEventSinks(channel: LiveTextChannel | undefined): InjectedSinks<LiveEventSinks> {
  return {
    toolkitLiveEvents: {
      said: {
        fn: (info: WorkflowInfo, event: AgentEvent) =>
          channel?.publishEvent?.({ workflowId: info.workflowId, runId: info.runId, seq: event.seq, event }),
        callDuringReplay: false,
      },
    },
  };
}
