import type { ToolCall } from '../common/messages.ts';
import type { AgentRunInput, ResolvedRun } from '../common/run.ts';
import { resolveRunActivities } from '../workflows/quick-activities.ts';

/** Handoffs one turn may make before it is stopped from passing the conversation around for ever. */
export const MAX_HANDOFFS_PER_TURN = 5;

/** A transfer the model asked for in the current step, carried out once the step's other calls are answered. */
export interface PendingHandoff {
  target: string;
  call: ToolCall;
  seq: number;
}

/**
 * Resolves the turn again for the agent the conversation is handed to (its model, instructions,
 * tools and skills); the activity answers the transfer call and gives the model the new
 * instructions. Recorded in history like the turn's first resolve, so replay sees the same.
 */
export function resolveHandoff(
  input: AgentRunInput,
  conversationId: string,
  from: string,
  handoff: PendingHandoff,
): Promise<ResolvedRun> {
  return resolveRunActivities().resolveRun({
    agent: handoff.target,
    conversationId,
    prompt: input.prompt,
    ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
    handoff: { from, call: handoff.call, seq: handoff.seq },
  });
}
