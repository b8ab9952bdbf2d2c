import type { JsonSchemaObject } from '../output/types.ts';
import type { ResolvedRun, ResolveRunInput } from './run.ts';
import type { ModelStep, RunLineSoFar } from './model-step.ts';
import type { FrontendTool } from '../frontend-tools/types.ts';

/**
 * A turn's opening step (`openRun`): the run is resolved, then its first model step is taken in the
 * same activity, which spares the turn a local activity (and its workflow activation) per start.
 */
export interface OpenRunInput {
  resolve: ResolveRunInput;
  /** What the first model step needs besides the plan. */
  step: {
    /** Store the answering agent with the assistant message (a chat session that was handed off). */
    labelAgent?: boolean;
    /** The run's own `output` schema and repairs (over the agent's). */
    output?: JsonSchemaObject;
    /** The turn's ledger line so far (`CallModelInput.runLine`). */
    runLine?: RunLineSoFar;
    /** The run's own deadline (`AgentRunInput.timeoutMs`); else the agent's applies. */
    timeoutMs?: number;
    /** A deadline already set (epoch ms: a sub-agent's parent's, or a deep run's from its first phase), which caps the turn's own. */
    deadlineAt?: number;
    /** When the turn started (epoch ms, workflow time): its deadline counts from here. */
    startedAt: number;
    /** The turn's frontend tools (`AgentRunInput.frontendTools`). */
    frontendTools?: FrontendTool[];
  };
}

/** What the opening step did: the plan always; the first model step unless it left it to the workflow. */
export interface OpenedRun {
  plan: ResolvedRun;
  /**
   * The first model step's answer (or its `overflow`: the request did not fit, and the workflow
   * compacts). Absent when the workflow takes the step as a step of its own: the model step
   * failed, would pass the deadline, or the run was stopped.
   */
  step?: ModelStep;
  /**
   * The first model step failed (its first attempt): the workflow fails the run with it when it is
   * not retryable or the agent allows one attempt, else takes the step with the attempts left.
   */
  failure?: {
    message: string;
    type: string;
    retryable: boolean;
    /** How long the provider asked to wait before a retry (Retry-After). */
    retryAfterMs?: number;
  };
  /** The turn passed its deadline before the first model step answered: the workflow stops it. */
  outOfTime?: true;
}
