import type { GuardrailTrip } from '../guardrails/recorded.ts';
import type { CachingOption } from '../caching/options.ts';
import type { ContextOverflow, ContextReport } from '../context/types.ts';
import type { JsonSchemaObject, OutputCheck } from '../output/types.ts';
import type { RecordRunInput } from '../usage/run-input.ts';
import type { ToolCall, Usage } from './messages.ts';
import type { ToolOutcome } from './run.ts';
import type { FrontendTool } from '../frontend-tools/types.ts';

/**
 * One model step of a run: what the workflow hands the `callModel` activity, the fast calls that
 * ride with it, and the small result it records in history.
 */

export interface CallModelInput {
  agent: string;
  /** The output guardrails the run chose (absent: all the agent's): its streaming checks run only these. */
  guardrails?: string[];
  /** Whose guardrails the step (its streaming checks, its carried calls) runs, when not its agent's. */
  guardrailsOf?: string;
  model: string;
  conversationId: string;
  /** Position the assistant message is stored at; the model sees the messages before it. */
  seq: number;
  tools: string[];
  /** The turn's frontend tools, offered after the agent's (the client runs them). */
  frontendTools?: FrontendTool[];
  /** Whose credentials apply when MCP servers are listed for the tool schemas. */
  tenant?: string;
  /** Send the text to the workflow in batches this long while the model writes (`text_delta`). */
  textDeltaBatchMs?: number;
  /** Send the step even when it is over the context budget (after a compaction that could not cut enough). */
  sendOverBudget?: boolean;
  /** A structured run: an answer without tool calls is checked against this schema (`ModelStep.output`). */
  output?: { schema: JsonSchemaObject };
  /** Store the answering agent's name with the assistant message (conversations that are handed off). */
  labelAgent?: boolean;
  /**
   * The turn's usage-ledger line so far: a step that answers (no tool calls, its output accepted)
   * writes it, ended now, so the turn needs no `recordRun` at its end (`ModelStep.runRecorded`).
   */
  runLine?: RunLineSoFar;
  /** Fast calls of the step before, run by this step before it asks the model (`ModelStep.carried`). */
  carried?: CarriedCalls;
  /** The run's own `caching`; absent when the agent's applies. */
  caching?: CachingOption;
}

/**
 * Calls of fast tools that ride with the next model step instead of running as local activities:
 * the step runs them (in parallel, each within `budgetMs`), stores their results, then asks the
 * model, which sees them. Saves the workflow task and local activity each step of fast calls costs.
 */
export interface CarriedCalls {
  calls: Array<{ call: ToolCall; seq: number }>;
  /** Built-in and MCP tools the run's skills attached (as `InvokeToolInput.skillTools`). */
  skillTools?: string[];
  /** The tool guardrails the run chose (as `InvokeToolInput.guardrails`). */
  guardrails?: string[];
  /** Each call's budget, as a fast call's local activity has (`timeouts.fastToolStartToCloseMs`). */
  budgetMs: number;
}

/**
 * What became of a carried call: it ran and its result is stored (`outcome`), it failed with the
 * tool's own answer, which is stored as its result (`failure`), or the workflow runs it again
 * (`retry`: it overran its budget, failed in a way a retry may cure, needs a user's grant or was
 * rate-limited; `attempt` is the step's attempt, from which the call's later writes count on).
 */
export type CarriedOutcome = { callId: string } & (
  { outcome: ToolOutcome } | { failure: { message: string; type: string } } | { retry: { attempt: number } }
);

/**
 * A turn's ledger line before it has ended (see {@link CallModelInput.runLine}), as short as it can
 * be (it travels with every step): what is left out is the default (no sub-runs, no tool calls,
 * `startSeq` 0, not counted, not released), and the step's own tenant, model and conversation are
 * the line's, and so is its agent unless the conversation was handed off.
 */
export type RunLineSoFar = Pick<RecordRunInput, 'startedAt'> &
  Partial<Pick<RecordRunInput, 'startSeq' | 'counted' | 'release' | 'subRuns' | 'toolCalls' | 'agent'>>;

/** The small delta a model step adds to history: the conversation itself stays in the store. */
export interface ModelStep {
  text: string;
  toolCalls: ToolCall[];
  reasoning?: string;
  usage?: Usage;
  /** What the step sent, against the context budget. */
  context?: ContextReport;
  /** Set when the step was not answered because its request does not fit: compact and call again. */
  overflow?: ContextOverflow;
  /** A structured run's answer (no tool calls), checked against the schema in the activity. */
  output?: OutputCheck;
  /** The step answered and wrote the turn's ledger line (and freed its slot when asked to). */
  runRecorded?: boolean;
  /** A streaming output guardrail tripped while the model wrote: nothing was stored, the run ends. */
  guardrail?: GuardrailTrip;
  /** What became of the calls the step carried (`CallModelInput.carried`), in their order. */
  carried?: CarriedOutcome[];
  /**
   * The step ran its carried calls but did not ask the model: one needs the workflow (a retry, a
   * grant, tools or a skill it loaded), the run was stopped, or the model step failed. The workflow
   * settles the calls and takes the step again, as a step of its own.
   */
  notTaken?: true;
  /**
   * The step's text went to readers on the live channel only, not to the workflow in batches: the
   * run records it as one `text_delta` of this `attempt` when the step answers (`text`: what
   * readers got, when it is not the step's `text`).
   */
  streamed?: { attempt: number; text?: string };
}
