import type { RunLimits } from '../common/control.ts';
import type { Usage } from '../common/messages.ts';

/**
 * Budget checks of the loop (`limits`), made before the step that would pass them. Each answers
 * why the run stops, or nothing when it may go on.
 */
export function tokenBudgetSpent(
  limits: RunLimits | undefined,
  used: Usage,
  lastStep: Usage | undefined,
): string | undefined {
  const max = limits?.maxTotalTokens;
  if (max === undefined || !lastStep) return undefined;
  // The next step reads at least everything the last one read and wrote.
  const next = lastStep.input_tokens + lastStep.output_tokens;
  if (used.total_tokens + next <= max) return undefined;
  return (
    `The run's budget of ${max} tokens would be passed: ${used.total_tokens} used, ` +
    `and the next step reads at least ${next}.`
  );
}

export function toolBudgetSpent(
  limits: RunLimits | undefined,
  made: number,
  asked: number,
): string | undefined {
  const max = limits?.maxToolCalls;
  if (max === undefined || made + asked <= max) return undefined;
  return `The run's budget of ${max} tool calls would be passed: ${made} made, ${asked} more asked for.`;
}

/** The run's limits: its own options over the agent definition's, field by field. */
export function mergeLimits(run: RunLimits | undefined, agent: RunLimits | undefined): RunLimits | undefined {
  if (!run && !agent) return undefined;
  return { ...agent, ...run };
}
