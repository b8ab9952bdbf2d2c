import { ActivityFailure, ApplicationFailure, isCancellation } from '@temporalio/workflow';
import type { ToolCall } from '../common/messages.ts';
import type { AgentRunInput, ResolvedRun } from '../common/run.ts';
import { resolveRunActivities } from '../workflows/quick-activities.ts';
import type { TurnSetting } from '../workflows/run-state.ts';

/** Handoffs one turn may make before it is stopped from passing the conversation around for ever. */
export const MAX_HANDOFFS_PER_TURN = 5;

/** A transfer the model asked for in the current step, carried out once the step's other calls are answered. */
export interface PendingHandoff {
  target: string;
  call: ToolCall;
  seq: number;
}

/** How a transfer call is answered when it is not carried out (src/workflows/tool-calls.ts). */
export interface TransferAnswers {
  /** The call was answered by the new agent's resolve. */
  answered(callId: string): void;
  /** The call failed: `content` is its result for the model, and `tool_failed` says why. */
  failed(call: ToolCall, seq: number, content: string, error: string, errorType: string): Promise<void>;
}

/** Why a transfer asked for now is not made (one per step, a few per turn); undefined when it is. */
export function notTransferred(pending: PendingHandoff | undefined, handoffs: number): string | undefined {
  if (pending) return `the conversation is already being transferred to ${pending.target}`;
  if (handoffs >= MAX_HANDOFFS_PER_TURN)
    return `a turn hands the conversation over at most ${MAX_HANDOFFS_PER_TURN} times`;
  return undefined;
}

/**
 * Hands the conversation from agent `from` to the handoff's target: answers the plan (model,
 * instructions, tools, skills) the turn goes on with from the next step, and says `handoff`. A
 * target this worker cannot resolve (not served here) fails the transfer call: the model hears
 * why, goes on, and undefined is answered.
 */
export async function handOver(
  setting: TurnSetting,
  from: string,
  handoff: PendingHandoff,
  calls: TransferAnswers,
): Promise<ResolvedRun | undefined> {
  let plan: ResolvedRun;
  try {
    plan = await resolveHandoff(setting.input, setting.conversationId, from, handoff);
  } catch (error) {
    // (A local activity's failure arrives as the ApplicationFailure itself.)
    const failed = error instanceof ActivityFailure || error instanceof ApplicationFailure;
    if (!failed || isCancellation(error)) throw error;
    const message = (error instanceof ActivityFailure ? error.cause?.message : undefined) ?? error.message;
    await calls.failed(handoff.call, handoff.seq, `Not transferred: ${message}`, message, 'Handoff');
    return undefined;
  }
  calls.answered(handoff.call.id);
  setting.emit('handoff', `${from} handed the conversation to ${handoff.target}`, {
    from,
    to: handoff.target,
    call_id: handoff.call.id,
  });
  return plan;
}

/**
 * Resolves the turn again for the agent the conversation is handed to (its model, instructions,
 * tools and skills); the activity answers the transfer call and gives the model the new
 * instructions. Recorded in history like the turn's first resolve, so replay sees the same.
 */
function resolveHandoff(
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
