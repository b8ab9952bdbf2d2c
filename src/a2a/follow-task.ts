import type { StreamResponse, Task, TaskState } from '@a2a-js/sdk';
import type { AgentEvent } from '../common/events.ts';
import { isSettled, isTerminal, STATE } from './parts.ts';
import { answerChunk, artifactUpdate, status, statusUpdate } from './task-messages.ts';
import type { TaskSource } from './task-source.ts';

/**
 * The task's updates from now on, as an A2A stream: its state now (a `task`), then a status update
 * per change the task's events show (tool calls as `working` messages, approvals and authorization
 * waits as `input-required`), the model's live text as chunks of the answer artifact, and at the
 * end the whole answer artifact and the final status. Stops after
 * the final status, or (with `untilSettled`) at the first state a blocking send returns at.
 */
export async function* followTask(
  source: TaskSource,
  opts: { first?: Task; untilSettled?: boolean; afterSeq?: number } = {},
): AsyncGenerator<StreamResponse> {
  const first = opts.first ?? (await source.read());
  yield { payload: { $case: 'task', value: first } };
  if (isTerminal(first.status?.state) || (opts.untilSettled && isSettled(first.status?.state))) return;
  const ids = { taskId: first.id, contextId: first.contextId };
  let state = first.status?.state;
  const afterSeq = opts.afterSeq ?? (await source.lastSeq());
  try {
    // Live text goes out as chunks of the answer artifact; a new step's text replaces the last one's.
    let live: { attempt: unknown } | undefined;
    for await (const event of source.events(afterSeq)) {
      if (event.type === 'text_delta' && event.payload.sub_run === undefined) {
        const append = live !== undefined && live.attempt === event.payload.attempt;
        live = { attempt: event.payload.attempt };
        yield answerChunk(ids, String(event.payload.text), append);
        continue;
      }
      if (event.type === 'step_started' && event.payload.sub_run === undefined) live = undefined;
      const next = stateOf(event);
      if (next === undefined) continue;
      if (next === 'end') break;
      if (next === state && !event.message) continue;
      state = next;
      yield statusUpdate(ids, next, status(ids, event.message, { event: event.type, ...event.payload }));
      if (opts.untilSettled && isSettled(next)) {
        // A wait the run has already left (decided meanwhile) is not where a blocking send stops.
        const now = await source.read();
        if (isSettled(now.status?.state)) return;
      }
    }
  } catch {
    // A run that failed ends its events with the failure: the final status below says why.
  }
  const last = await source.read();
  for (const artifact of last.artifacts) yield artifactUpdate(ids, artifact, false, true);
  yield statusUpdate(ids, last.status!.state, last.status!.message);
}

/** The state an event of the run (not of a sub-agent run, except its waits) moves the task to. */
function stateOf(event: AgentEvent): TaskState | 'end' | undefined {
  const child = event.payload.sub_run !== undefined;
  switch (event.type) {
    case 'run_completed':
    case 'run_cancelled':
      return child ? undefined : 'end';
    case 'approval_requested':
    case 'authorization_required':
      return STATE.inputRequired;
    case 'approval_granted':
    case 'approval_rejected':
    case 'authorization_granted':
    case 'authorization_timed_out':
      return STATE.working;
    case 'run_started':
    case 'tool_called':
    case 'tool_completed':
    case 'tool_failed':
    case 'handoff':
      return child ? undefined : STATE.working;
    default:
      return undefined;
  }
}
