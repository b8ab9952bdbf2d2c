import type { Context } from '@temporalio/activity';
import type { WriteAttempt } from '../memory/types.ts';

/**
 * The attempt of the running activity, for the memory store: a write from an attempt older than the
 * one that stored a position is refused, so a frozen attempt that wakes after its retry finished
 * cannot rewrite the conversation the workflow went on with.
 */
export function writeAttemptOf(context: Pick<Context, 'info'>): WriteAttempt {
  const { info } = context;
  return {
    writer: `${info.workflowExecution?.runId ?? info.workflowType ?? ''}/${info.activityId}`,
    attempt: info.attempt,
  };
}
