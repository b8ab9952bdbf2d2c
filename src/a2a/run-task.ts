import { WorkflowNotFoundError } from '@temporalio/common';
import type { Task } from '@a2a-js/sdk';
import type { AgentRunHandle } from '../client/run-handle.ts';
import type { AgentEvent } from '../common/events.ts';
import type { AgentResult } from '../common/run.ts';
import type { PendingApproval } from '../common/control.ts';
import type { PendingAuthorization } from '../common/authorization.ts';
import { answerArtifact, STATE } from './parts.ts';
import { failure, inputRequest, status, task } from './task-messages.ts';
import { contextIdOf } from './task-ids.ts';
import type { TaskSource } from './task-source.ts';

/** A task in a context of its own: a run, whose workflow id is the task id. */
export class RunTask implements TaskSource {
  readonly controls: AgentRunHandle<unknown>;

  constructor(run: AgentRunHandle<unknown>) {
    this.controls = run;
  }

  get taskId(): string {
    return this.controls.workflowId;
  }

  read(): Promise<Task> {
    return readRun(this.controls);
  }

  events(afterSeq: number): AsyncIterable<AgentEvent> {
    return this.controls.events({ afterSeq });
  }

  lastSeq(): Promise<number> {
    return lastSeqOf(this.controls);
  }

  exists(): Promise<boolean> {
    return workflowExists(this.controls);
  }
}

/**
 * A task is a run: its id is the run's workflow id, which also names its context (src/a2a/task-ids.ts). Everything a
 * task shows is read from the workflow (its status, its pending approvals and authorizations, its
 * result), so any process that reaches Temporal answers for it, after any restart.
 */
async function readRun(run: AgentRunHandle<unknown>): Promise<Task> {
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

/** Whether a workflow exists. */
export async function workflowExists(run: AgentRunHandle<unknown>): Promise<boolean> {
  try {
    await run.workflow.describe();
    return true;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** The seq of the run's last event now (0 before the first). */
export async function lastSeqOf(run: AgentRunHandle<unknown>): Promise<number> {
  const events = await run.listEvents().catch(() => [] as AgentEvent[]);
  return events.filter((event) => !event.payload.sub_run).at(-1)?.seq ?? 0;
}

function isResult(value: unknown): value is AgentResult<unknown> {
  return typeof value === 'object' && value !== null && 'metadata' in value;
}
