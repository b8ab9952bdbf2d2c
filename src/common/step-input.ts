import type { ResolvedRun } from './run.ts';
import type { CallModelInput, CarriedCalls, RunLineSoFar } from './model-step.ts';
import type { JsonSchemaObject } from '../output/types.ts';
import type { FrontendTool } from '../frontend-tools/types.ts';

/** Where a turn's loop stands when it asks for a model step. */
export interface StepPosition {
  /** The agent holding the conversation. */
  agent: string;
  plan: ResolvedRun;
  conversationId: string;
  seq: number;
  /** The tools the model sees (the plan's, and those `tool_search` offered since). */
  tools: string[];
  /** The turn's frontend tools (the client runs them). */
  frontendTools?: FrontendTool[] | undefined;
  tenant?: string;
  /** Store the answering agent with the assistant message. */
  labelAgent: boolean;
  /** A structured turn's schema. */
  output?: JsonSchemaObject;
  runLine?: RunLineSoFar;
  carried?: CarriedCalls;
}

/**
 * The input of a model step: built in one place for the loop's steps (workflow) and for the first
 * step an opening step takes (activity), so both ask the model alike.
 */
export function modelStepInput(at: StepPosition): CallModelInput {
  return {
    agent: at.agent,
    ...(at.labelAgent ? { labelAgent: true } : {}),
    model: at.plan.model,
    conversationId: at.conversationId,
    seq: at.seq,
    tools: at.tools,
    ...(at.frontendTools?.length ? { frontendTools: at.frontendTools } : {}),
    ...(at.tenant !== undefined ? { tenant: at.tenant } : {}),
    ...(at.plan.textDeltaBatchMs ? { textDeltaBatchMs: at.plan.textDeltaBatchMs } : {}),
    ...(at.output ? { output: { schema: at.output } } : {}),
    ...(at.runLine ? { runLine: at.runLine } : {}),
    ...(at.carried ? { carried: at.carried } : {}),
    ...(at.plan.caching !== undefined ? { caching: at.plan.caching } : {}),
    ...(at.plan.guardrails?.output_names ? { guardrails: at.plan.guardrails.output_names } : {}),
    ...inheritedFrom(at.plan, at.agent),
  };
}

/** Whose guardrails a step or call of `agent` runs, when not its own (a sub-agent runs its parent's). */
export function inheritedFrom(plan: ResolvedRun, agent: string): { guardrailsOf?: string } {
  const owner = plan.guardrails?.owner;
  return owner !== undefined && owner !== agent ? { guardrailsOf: owner } : {};
}
