import type { ToolCall } from '../common/messages.ts';
import type { ResolvedRun } from '../common/run.ts';
import type { ApprovalDecision, Approvals } from './approvals.ts';
import { quickActivities } from './quick-activities.ts';

type Emit = (
  type: 'approval_requested' | 'approval_granted' | 'approval_rejected',
  message: string,
  payload: Record<string, unknown>,
) => void;

/**
 * Whether `call` must wait for a person: the agent's `approval.tools`, or the tool's own
 * `needsApproval` (a function is asked on the worker, in an activity, since it is the tool's code).
 */
export async function callNeedsApproval(
  plan: ResolvedRun,
  call: ToolCall,
  context: { agent: string; tenant?: string },
): Promise<boolean> {
  const approval = plan.approval;
  if (!approval) return false;
  if (approval.tools.includes(call.name)) return true;
  if (!approval.dynamic.includes(call.name)) return false;
  return quickActivities.needsApproval({ agent: context.agent, call, tenant: context.tenant });
}

/** Asks for a decision on `call` and waits for it durably; the events say what was asked and decided. */
export async function askApproval(
  approvals: Approvals,
  call: ToolCall,
  timeoutMs: number,
  emit: Emit,
): Promise<ApprovalDecision> {
  const ids = { call_id: call.id, tool: call.name };
  emit('approval_requested', `${call.name} waits for approval`, { ...ids, args: call.args });
  const decision = await approvals.wait(call, timeoutMs);
  if (decision.approved) {
    emit('approval_granted', `${call.name} was approved`, {
      ...ids,
      ...(decision.note ? { note: decision.note } : {}),
    });
  } else {
    emit('approval_rejected', `${call.name} was declined: ${decision.reason}`, {
      ...ids,
      reason: decision.reason,
    });
  }
  return decision;
}
