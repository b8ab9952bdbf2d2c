import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Artifact, Message, StreamResponse, Task, TaskState } from '@a2a-js/sdk';
import type { AgentRunHandle } from '../client/run-handle.ts';
import type { AgentEvent } from '../common/events.ts';
import type { AgentResult } from '../common/run.ts';
import type { PendingApproval } from '../common/control.ts';
import type { PendingAuthorization } from '../common/authorization.ts';
import { contextIdOf } from './task-ids.ts';
import { agentMessage, answerArtifact, dataPart, isSettled, isTerminal, STATE, textPart } from './parts.ts';

/**
 * A task is a run: its id is the run's workflow id, which also names its context (src/a2a/task-ids.ts). Everything a
 * task shows is read from the workflow (its status, its pending approvals and authorizations, its
 * result), so any process that reaches Temporal answers for it, after any restart.
 */
export async function readTask(run: AgentRunHandle<unknown>): Promise<Task> {
  const description = await run.workflow.describe();
  const ids = { taskId: run.workflowId, contextId: contextIdOf(run.workflowId) };
  switch (description.status.name) {
    case 'RUNNING': {
      // The waits are asked of a worker: while none is up, the running task reads as working.
      const [approvals, authorizations] = await Promise.all([
        run.pendingApprovals(),
        run.pendingAuthorizations(),
      ]).catch(() => [[], []] as [PendingApproval[], PendingAuthorization[]]);
      if (approvals.length || authorizations.length) {
        return task(ids, STATE.inputRequired, inputRequest(ids, approvals, authorizations));
      }
      return task(ids, STATE.working);
    }
    case 'COMPLETED': {
      const result = await run.result().catch((error: unknown) => error);
      if (!isResult(result)) return task(ids, STATE.failed, failure(ids, result));
      const stop = result.metadata.stop_reason;
      if (stop === 'cancelled') return task(ids, STATE.canceled, status(ids, 'The run was cancelled.'));
      const done = task(ids, STATE.completed, status(ids, `The run ended: ${stop}.`));
      done.artifacts = [answerArtifact(result.output)];
      done.metadata = { stop_reason: stop, iterations: result.metadata.iterations };
      return done;
    }
    case 'CANCELLED':
      return task(ids, STATE.canceled, status(ids, 'The run was cancelled.'));
    default: {
      const error = await run.result().then(
        () => new Error(`the run is ${description.status.name}`),
        (caught: unknown) => caught,
      );
      return task(ids, STATE.failed, failure(ids, error));
    }
  }
}

/** Whether `taskId` names a run (a workflow Temporal knows). */
export async function exists(run: AgentRunHandle<unknown>): Promise<boolean> {
  try {
    await run.workflow.describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * The task's updates from now on, as an A2A stream: its state now (a `task`), then a status update
 * per change the run's events show (tool calls as `working` messages, approvals and authorization
 * waits as `input-required`), the model's live text as chunks of the answer artifact, and at the
 * end the whole answer artifact and the final status. Stops after
 * the final status, or (with `untilSettled`) at the first state a blocking send returns at.
 */
export async function* followTask(
  run: AgentRunHandle<unknown>,
  opts: { first?: Task; untilSettled?: boolean; afterSeq?: number } = {},
): AsyncGenerator<StreamResponse> {
  const first = opts.first ?? (await readTask(run));
  yield { payload: { $case: 'task', value: first } };
  if (isTerminal(first.status?.state) || (opts.untilSettled && isSettled(first.status?.state))) return;
  const ids = { taskId: first.id, contextId: first.contextId };
  let state = first.status?.state;
  const afterSeq = opts.afterSeq ?? (await lastSeq(run));
  try {
    // Live text goes out as chunks of the answer artifact; a new step's text replaces the last one's.
    let live: { attempt: unknown } | undefined;
    for await (const event of run.events({ afterSeq })) {
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
        const now = await readTask(run);
        if (isSettled(now.status?.state)) return;
      }
    }
  } catch {
    // A run that failed ends its events with the failure: the final status below says why.
  }
  const last = await readTask(run);
  for (const artifact of last.artifacts) yield artifactUpdate(ids, artifact, false, true);
  yield statusUpdate(ids, last.status!.state, last.status!.message);
}

/** The seq of the run's last event now (0 before the first). */
export async function lastSeq(run: AgentRunHandle<unknown>): Promise<number> {
  const events = await run.listEvents().catch(() => [] as AgentEvent[]);
  return events.filter((event) => !event.payload.sub_run).at(-1)?.seq ?? 0;
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

function task(ids: { taskId: string; contextId: string }, state: TaskState, message?: Message): Task {
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state, message, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [],
    metadata: undefined,
  };
}

/** A piece of the answer as the model writes it (`append: false` starts the artifact over). */
function answerChunk(
  ids: { taskId: string; contextId: string },
  text: string,
  append: boolean,
): StreamResponse {
  return artifactUpdate(ids, { ...answerArtifact(text), metadata: { live: true } }, append, false);
}

function artifactUpdate(
  ids: { taskId: string; contextId: string },
  artifact: Artifact,
  append: boolean,
  lastChunk: boolean,
): StreamResponse {
  return {
    payload: { $case: 'artifactUpdate', value: { ...ids, artifact, append, lastChunk, metadata: undefined } },
  };
}

function statusUpdate(
  ids: { taskId: string; contextId: string },
  state: TaskState,
  message: Message | undefined,
): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: { ...ids, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined },
    },
  };
}

function status(ids: { taskId: string; contextId: string }, text: string, data?: unknown): Message {
  const parts = data === undefined ? [textPart(text)] : [textPart(text), dataPart(data)];
  return agentMessage({ ...ids, messageId: randomUUID() }, parts);
}

/** What the run waits for, and how to answer it: a message with `approve`/`reject` (or a data part). */
function inputRequest(
  ids: { taskId: string; contextId: string },
  approvals: PendingApproval[],
  authorizations: PendingAuthorization[],
): Message {
  const lines = [
    ...approvals.map(
      (call) =>
        `Tool call ${call.call_id} (${call.tool} ${JSON.stringify(call.args)}) waits for approval: ` +
        'answer "approve" or "reject: <reason>".',
    ),
    ...authorizations.map(
      (wait) =>
        `${wait.tool} needs authorization of "${wait.credential_key}": open ${wait.url}; ` +
        'the task goes on by itself once it is granted (answer "cancel" to stop it).',
    ),
  ];
  return status(ids, lines.join('\n'), {
    pending_approvals: approvals,
    pending_authorizations: authorizations,
  });
}

function failure(ids: { taskId: string; contextId: string }, error: unknown): Message {
  return status(ids, `The run failed: ${error instanceof Error ? error.message : String(error)}`);
}

function isResult(value: unknown): value is AgentResult<unknown> {
  return typeof value === 'object' && value !== null && 'metadata' in value;
}
