import { toolResultMessage } from '../common/messages.ts';
import type { SubRunSummary } from '../common/run.ts';
import type { storeActivities } from '../workflows/quick-activities.ts';
import type { CallEffect, PlacedCall, RunView, TurnSetting } from '../workflows/run-state.ts';
import { DEFAULT_MAX_SUB_AGENT_DEPTH, type ResolvedSubAgent } from './types.ts';
import { runSubAgent, type SubAgentCaller } from './workflow-child.ts';
import { limitsLeft } from './workflow-limits.ts';
import type { SiblingBudgets } from './workflow-sibling-budgets.ts';

/** What a sub-agent call needs of the run that makes it. */
export interface Delegation {
  readonly setting: TurnSetting;
  /** The calling run as it stands: its agent, plan and what it spent (the child gets what is left). */
  readonly run: RunView;
  readonly store: ReturnType<typeof storeActivities>;
  /** Takes the child's summary into the calling run (its usage and tool calls count there). */
  readonly settled: (effect: CallEffect) => void;
}

/**
 * A sub-agent call: a child run (src/subagents/workflow-child.ts), its answer stored as the call's
 * result, its usage and tool calls handed to the calling run, and `tool_completed` or `tool_failed`
 * naming the child.
 */
export async function delegate(
  from: Delegation,
  { call, seq }: PlacedCall,
  sub: ResolvedSubAgent,
  siblings: SiblingBudgets,
): Promise<void> {
  const { setting, run } = from;
  const { input, control, emit } = setting;
  // The children of one step share what the run has left.
  const share = siblings.take(limitsLeft(setting.limits, run.usage, run.toolCalls));
  const caller: SubAgentCaller = {
    agent: run.agent,
    ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
    depth: input.parent?.depth ?? 0,
    maxDepth: input.parent?.maxDepth ?? run.plan.delegation?.maxSubAgentDepth ?? DEFAULT_MAX_SUB_AGENT_DEPTH,
    ...(control.deadlineAt !== undefined ? { deadlineAt: control.deadlineAt } : {}),
    ...(share.limits ? { limitsLeft: share.limits } : {}),
    running: control.subRuns,
    emit: (type, message, payload) => emit(type, message, payload),
  };
  let child: SubRunSummary | undefined;
  let outcome: Awaited<ReturnType<typeof runSubAgent>>;
  try {
    outcome = await runSubAgent(caller, sub, call, (summary) => {
      child = summary;
      from.settled({ kind: 'sub_run', summary });
    });
  } finally {
    share.release();
  }
  await from.store.appendMessages({
    agent: run.agent,
    conversationId: setting.conversationId,
    seq,
    messages: [toolResultMessage(call, outcome.content, outcome.isError)],
  });
  const about = {
    tool: call.name,
    call_id: call.id,
    child_agent: sub.agent,
    ...(child ? { child_run: child.workflow_id, stop_reason: child.stop_reason, usage: child.usage } : {}),
  };
  const preview = outcome.content.slice(0, 2000);
  if (outcome.isError) {
    emit('tool_failed', `${call.name} failed: ${preview}`, {
      ...about,
      error: preview,
      error_type: 'SubAgent',
    });
  } else {
    emit('tool_completed', `${call.name} completed (${outcome.content.length} characters)`, {
      ...about,
      output: preview,
      truncated: preview.length < outcome.content.length,
    });
  }
}
