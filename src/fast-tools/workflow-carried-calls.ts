import type { ToolCall } from '../common/messages.ts';
import type { ResolvedRun } from '../common/run.ts';
import type { CarriedCalls } from '../common/model-step.ts';
import { fastCallBudgetMs } from './workflow-fast-call.ts';

/**
 * Whether a step's calls can ride with the next model step (src/fast-tools/carried-calls.ts): the
 * plan says fast calls ride (plans from older workers do not), and every call is of a fast tool
 * that waits for nothing first: no approval, no rate-limited queue, not a sub-agent or a handoff.
 * A history records the plan, so its replay decides the same.
 */
export function carriable(plan: ResolvedRun, calls: ReadonlyArray<{ call: ToolCall }>): boolean {
  const { fastTools, approval, toolQueues, delegation } = plan;
  if (!plan.carryFastCalls || !fastTools) return false;
  return calls.every(({ call: { name } }) => {
    if (!fastTools.includes(name) || toolQueues?.[name]) return false;
    if (approval && (approval.tools.includes(name) || approval.dynamic.includes(name))) return false;
    return !delegation?.subAgents?.[name] && !delegation?.handoffs?.[name];
  });
}

/** The calls as the next model step carries them. */
export function carriedCalls(
  plan: ResolvedRun,
  calls: Array<{ call: ToolCall; seq: number }>,
  skillTools: readonly string[],
): CarriedCalls {
  return {
    calls,
    ...(skillTools.length ? { skillTools: [...skillTools] } : {}),
    ...(plan.guardrails?.tool_names ? { guardrails: plan.guardrails.tool_names } : {}),
    budgetMs: fastCallBudgetMs(plan.timeouts),
  };
}
