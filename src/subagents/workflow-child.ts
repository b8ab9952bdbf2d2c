import {
  ChildWorkflowFailure,
  isCancellation,
  ParentClosePolicy,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import type { RunLimits } from '../common/control.ts';
import type { ToolCall, Usage } from '../common/messages.ts';
import type { AgentResult, AgentRunInput, SubRunSummary } from '../common/run.ts';
import { agentMemo, agentSearchAttributes, TOOLKIT_AGENT } from '../visibility/search-attributes.ts';
import { runDetails, runSummary } from '../visibility/summary.ts';
import type { ParentRunInfo, ResolvedSubAgent, RunningSubRun } from './types.ts';

/** What a sub-agent call needs of the run that makes it. */
export interface SubAgentCaller {
  /** The calling run's agent and tenant. */
  agent: string;
  tenant?: string;
  /** The caller's own depth (0 for a top-level run) and the cap of its tree. */
  depth: number;
  maxDepth: number;
  /** The caller's deadline (epoch ms, workflow time), when it has one. */
  deadlineAt?: number;
  /** What is left of the caller's budgets now. */
  limitsLeft?: RunLimits;
  /** The caller's running children (read by the `toolkit.subRuns` query). */
  running: Map<string, RunningSubRun>;
  emit: (type: 'tool_called', message: string, payload: Record<string, unknown>) => void;
}

/** How a sub-agent call ended: the call's result for the model. */
export interface SubAgentOutcome {
  content: string;
  isError: boolean;
}

const NO_USAGE: Usage = Object.freeze({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });

/** A child run's workflow id: the parent's id and the call's, so a replayed or retried step finds the same child. */
export function childWorkflowId(parentWorkflowId: string, callId: string): string {
  return `${parentWorkflowId}/${callId}`;
}

/**
 * Runs one sub-agent call as a child workflow (`agentRun`) and answers its result: the child's
 * answer (its structured output as JSON), or an error result when it failed, stopped early or could
 * not start. The child is cancelled with its parent (`REQUEST_CANCEL`, and the parent waits until
 * it has stopped). A cancellation of the caller is rethrown after the child is recorded in
 * `onSummary`, so the caller's stop answers the call.
 */
export async function runSubAgent(
  caller: SubAgentCaller,
  sub: ResolvedSubAgent,
  call: ToolCall,
  onSummary: (summary: SubRunSummary) => void,
): Promise<SubAgentOutcome> {
  const prompt = sub.structuredInput ? JSON.stringify(call.args) : call.args.task;
  if (typeof prompt !== 'string' || prompt.trim() === '') {
    return error(`${call.name} needs a non-empty \`task\`: what the ${sub.name} agent should do.`);
  }
  const depth = caller.depth + 1;
  if (depth > caller.maxDepth) {
    return error(
      `Not run: sub-agents nest at most ${caller.maxDepth} deep (maxSubAgentDepth); do this task yourself.`,
    );
  }
  const info = workflowInfo();
  const workflowId = childWorkflowId(info.workflowId, call.id);
  const parent: ParentRunInfo = {
    workflowId: info.workflowId,
    agent: caller.agent,
    callId: call.id,
    depth,
    maxDepth: caller.maxDepth,
    ...(caller.deadlineAt !== undefined ? { deadlineAt: caller.deadlineAt } : {}),
    ...(caller.limitsLeft ? { limits: caller.limitsLeft } : {}),
  };
  const input: AgentRunInput = {
    agent: sub.agent,
    prompt,
    ...(caller.tenant !== undefined ? { tenant: caller.tenant } : {}),
    parent,
  };
  const fields = {
    agent: sub.agent,
    tenant: caller.tenant,
    kind: 'sub-agent run' as const,
    parent: caller.agent,
  };
  // The parent has the search attributes only on a cluster that defines them: so may its children.
  const searchable = info.typedSearchAttributes.get(TOOLKIT_AGENT) !== undefined;
  const summary = (
    stop_reason: SubRunSummary['stop_reason'],
    result?: AgentResult<unknown>,
  ): SubRunSummary => ({
    name: sub.name,
    agent: sub.agent,
    workflow_id: workflowId,
    call_id: call.id,
    stop_reason,
    usage: result?.metadata.usage ?? NO_USAGE,
    tool_calls: result?.metadata.tool_calls ?? 0,
  });
  let started = false;
  try {
    const child = await startChild('agentRun', {
      workflowId,
      args: [input],
      parentClosePolicy: ParentClosePolicy.REQUEST_CANCEL,
      cancellationType: 'WAIT_CANCELLATION_COMPLETED',
      staticSummary: runSummary(fields),
      staticDetails: runDetails(fields),
      memo: { ...agentMemo(sub.agent, caller.tenant), parent_agent: caller.agent },
      ...(searchable ? { typedSearchAttributes: agentSearchAttributes(sub.agent, caller.tenant) } : {}),
    });
    started = true;
    caller.running.set(workflowId, { agent: sub.agent, workflow_id: workflowId, call_id: call.id, depth });
    caller.emit('tool_called', `Calling ${call.name}: the ${sub.name} agent`, {
      tool: call.name,
      call_id: call.id,
      args: call.args,
      child_agent: sub.agent,
      child_run: workflowId,
    });
    const result = (await child.result()) as AgentResult<unknown>;
    const { stop_reason } = result.metadata;
    onSummary(summary(stop_reason, result));
    const answer = typeof result.output === 'string' ? result.output : JSON.stringify(result.output ?? null);
    if (stop_reason === 'completed') return { content: answer, isError: false };
    const last = answer ? ` Its last answer: ${answer}` : '';
    return error(`The ${sub.name} agent stopped early (${stop_reason}).${last}`);
  } catch (failure) {
    if (isCancellation(failure)) {
      if (started) onSummary(summary('cancelled'));
      throw failure;
    }
    if (!(failure instanceof ChildWorkflowFailure) && started) throw failure;
    onSummary(summary('failed'));
    return error(`The ${sub.name} agent failed: ${rootMessage(failure)}`);
  } finally {
    caller.running.delete(workflowId);
  }
}

function error(content: string): SubAgentOutcome {
  return { content: `Error: ${content}`, isError: true };
}

function rootMessage(error: unknown): string {
  let root = error;
  while (root instanceof Error && root.cause instanceof Error) root = root.cause;
  return root instanceof Error ? root.message : String(root);
}
