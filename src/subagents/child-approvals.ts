import { QueryNotRegisteredError, WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { PENDING_APPROVALS_QUERY, type PendingApproval } from '../common/control.ts';
import { SUB_RUNS_QUERY, type RunningSubRun } from './types.ts';

/** A pending approval and the workflow (the run itself or one of its sub-agent runs) that waits for it. */
export interface PendingInTree {
  approval: PendingApproval;
  workflow: WorkflowHandle;
}

/**
 * The tool calls waiting for approval in a run and in its running sub-agent runs, recursively (read
 * with queries, which cost no history). A child's are tagged with `sub_run` and `agent`.
 */
export async function pendingInTree(workflow: WorkflowHandle): Promise<PendingInTree[]> {
  const [own, children] = await Promise.all([
    workflow.query<PendingApproval[]>(PENDING_APPROVALS_QUERY),
    runningChildren(workflow),
  ]);
  const found = own.map((approval) => ({ approval, workflow }));
  const nested = await Promise.all(
    children.map(async (child) => {
      const handle = workflow.client.getHandle(child.workflow_id);
      try {
        return (await pendingInTree(handle)).map(({ approval, workflow: holder }) => ({
          approval: approval.sub_run
            ? approval
            : { ...approval, sub_run: child.workflow_id, agent: child.agent },
          workflow: holder,
        }));
      } catch (error) {
        if (error instanceof WorkflowNotFoundError) return []; // it ended meanwhile
        throw error;
      }
    }),
  );
  return [...found, ...nested.flat()];
}

/**
 * The workflow where a decision on `callId` is awaited: one of the run's sub-agent runs, or the run
 * itself when no running child waits for it.
 */
export async function approvalHolder(workflow: WorkflowHandle, callId: string): Promise<WorkflowHandle> {
  const pending = await pendingInTree(workflow);
  return (
    pending.find((entry) => entry.approval.call_id === callId && entry.workflow !== workflow)?.workflow ??
    workflow
  );
}

async function runningChildren(workflow: WorkflowHandle): Promise<RunningSubRun[]> {
  try {
    return await workflow.query<RunningSubRun[]>(SUB_RUNS_QUERY);
  } catch (error) {
    // Runs of earlier versions have no sub-runs query (and no sub-runs).
    if (error instanceof QueryNotRegisteredError) return [];
    throw error;
  }
}
