import { setCurrentDetails } from '@temporalio/workflow';

import type { StopReason } from '../common/run.ts';

/**
 * Shows in the Temporal UI where a run stands (workflow code): the step and the limit, and the
 * phase of a deep run.
 */
export function showStep(iteration: number, maxIterations: number, tags: Record<string, unknown>): void {
  setCurrentDetails(`**Step ${iteration}** of at most ${maxIterations}${phaseOf(tags)}`);
}

const ENDINGS: Record<StopReason, string> = {
  completed: 'Completed',
  max_iterations: 'Stopped at the iteration limit',
  cancelled: 'Cancelled',
  deadline: 'Stopped at the deadline',
  budget: 'Stopped: over budget',
  invalid_output: 'Stopped: the answer never matched the output schema',
  authorization_timeout: 'Stopped: no authorization in time',
  quota: "Stopped: the tenant's daily token quota is spent",
  guardrail: 'Stopped: a guardrail tripped',
};

/** Shows that a tool call waits for the user's grant: "waiting for authorization of mail". */
export function showWaitingForAuthorization(key: string, tool: string): void {
  setCurrentDetails(`**Waiting for authorization of ${key}** (${tool} runs once it is granted)`);
}

/** Shows how a run (or a chat turn, or a deep run's phase) ended, e.g. "Completed after 2 steps". */
export function showEnd(stopReason: StopReason, iterations: number, tags: Record<string, unknown>): void {
  setCurrentDetails(`**${endingOf(stopReason)}** after ${steps(iterations)}${phaseOf(tags)}`);
}

/** Shows which guardrail stopped a run (or a chat turn, or a deep run's phase), and what it said. */
export function showTripped(
  trip: { kind: string; check: string; reason: string; tool?: string },
  iterations: number,
  tags: Record<string, unknown>,
): void {
  const on = trip.tool ? ` on ${trip.tool}` : '';
  setCurrentDetails(
    `**Stopped by the ${trip.kind} guardrail "${trip.check}"**${on} after ${steps(iterations)}${phaseOf(tags)}: ${trip.reason}`,
  );
}

/**
 * Shows that a run failed, with the first line of what failed (the activity's own error, not its
 * wrapper): "Failed after 2 steps: …", or "Failed: …" when it failed opening (its first step).
 */
export function showFailure(error: unknown, iterations: number, tags: Record<string, unknown>): void {
  const after = iterations > 0 ? ` after ${steps(iterations)}` : '';
  setCurrentDetails(`**Failed**${after}${phaseOf(tags)}: ${failureOf(error)}`);
}

/**
 * Shows a chat session between turns: which turn was the last and how it ended, e.g.
 * "Waiting for a message · turn 3 completed after 2 steps" (or "turn 3 failed: …").
 */
export function showSessionIdle(
  turn: number,
  last: { stopReason: StopReason; iterations: number } | { error: unknown },
): void {
  const how =
    'error' in last
      ? `failed: ${failureOf(last.error)}`
      : `${endingOf(last.stopReason).toLowerCase()} after ${steps(last.iterations)}`;
  setCurrentDetails(`**Waiting for a message** · turn ${turn} ${how}`);
}

function endingOf(stopReason: StopReason): string {
  return ENDINGS[stopReason] ?? `Stopped (${stopReason})`;
}

/** The first line of what failed (the activity's own error, not its wrapper). */
function failureOf(error: unknown): string {
  let root = error;
  while (root instanceof Error && root.cause instanceof Error) root = root.cause;
  return (root instanceof Error ? root.message : String(root)).split('\n')[0]!.slice(0, 200);
}

function steps(count: number): string {
  return count === 1 ? '1 step' : `${count} steps`;
}

function phaseOf(tags: Record<string, unknown>): string {
  return typeof tags.phase === 'string' ? ` · ${tags.phase} phase` : '';
}
