import type { GuardrailPlan, GuardrailSelection, GuardrailTrip } from '../guardrails/recorded.ts';
import type { CachingOption } from '../caching/options.ts';
import type { ContextMetadata } from '../context/types.ts';
import type { Skill } from '../skills/skill.ts';
import type { AuthorizationRequest, ResolvedAuthorization } from './authorization.ts';
import type { ResolvedApproval, RunLimits } from './control.ts';
import type { ClosedRunEvents } from './events.ts';
import type { Message, ToolCall, Usage } from './messages.ts';
import type { JsonSchemaObject, OutputFailure, OutputSpec } from '../output/types.ts';
import type { ParentRunInfo, ResolvedDelegation } from '../subagents/types.ts';
import type { RateLimitedCall } from '../rate-limits/types.ts';
import type { QuotaExceededDetails } from '../errors.ts';
import type { FrontendTool } from '../frontend-tools/types.ts';

/**
 * The input of the `agentRun` workflow: the run's configuration by reference. Never a secret and
 * never a model object; the worker maps `agent` to its model adapter, tools and stores.
 */
export interface AgentRunInput {
  /** Name of an agent registered on the worker (`createAgentWorker({ agents })`). */
  agent: string;
  prompt: string;
  /** Scopes credential lookups to one end user. */
  tenant?: string;
  /** An explicit limit; without it the agent's configured limit (default 4) applies. */
  maxIterations?: number;
  /** Memory-store key of the conversation. Default: the workflow id. */
  conversationId?: string;
  /** Skills for this run on top of the agent's own, by id or as Skill objects. */
  skills?: Array<string | Skill>;
  /** The model, by name (never an object or a key): the worker maps names to adapters. Default: the agent's. */
  model?: string;
  /** End the run with `stop_reason: 'deadline'` after this long (in-flight work is cancelled). */
  timeoutMs?: number;
  /** End the run with `stop_reason: 'budget'` before a step would pass one of these. */
  limits?: RunLimits;
  /** A structured answer: the JSON Schema it must match (the agent's own `output` otherwise). */
  output?: JsonSchemaObject;
  /** Repair steps for an answer that does not match (default: the agent's, else 2). */
  outputRepairs?: number;
  /** Set when a parent run started this one as a sub-agent (its deadline and remaining budgets flow down). */
  parent?: ParentRunInfo;
  /** The provider's prompt cache for this run (the agent's `caching` otherwise). */
  caching?: CachingOption;
  /** Which of the agent's guardrails this run runs, by name (all of them otherwise). */
  guardrails?: GuardrailSelection;
  /**
   * Tools the client offers for this run and runs itself (docs/ag-ui.md): a call of one waits for
   * the client's result (the `toolkit.toolResult` update), then the model sees it.
   */
  frontendTools?: FrontendTool[];
}

/**
 * Why a run ended: it answered, hit `maxIterations`, was cancelled from outside, passed its
 * `timeoutMs`, would have passed one of its `limits`, or its tenant's daily token quota was spent
 * (`quota`, see `quotas` on `createAgentWorker`).
 */
export type StopReason =
  | 'completed'
  | 'max_iterations'
  | 'cancelled'
  | 'deadline'
  | 'budget'
  | 'invalid_output'
  | 'authorization_timeout'
  | 'quota'
  | 'guardrail';

/**
 * What a run returns. `output` is the answer's text, or in a structured run (`output` option) the
 * parsed object, typed from the schema; a structured run that stopped before a matching answer
 * (`max_iterations`, `budget`, `cancelled`, `deadline`) has `output: undefined` and its last text
 * in `metadata.text`. A run that ended with `invalid_output` rejects `result()` with an
 * `OutputValidationError`.
 */
export interface AgentResult<T = string> {
  output: T;
  metadata: {
    used_skills: string[];
    used_skill_tools: string[];
    /** Tools the selected skills attach that this worker does not have. */
    unavailable_skill_tools: string[];
    /** MCP servers the selected skills name (`mcps`) that this worker does not have or could not reach. */
    unavailable_skill_mcps: string[];
    /**
     * MCP servers the run was to get whose tools could not be listed (a wrong token, a server that is
     * down), with why; the run went on without their tools. Also said by a `warning` event at its start.
     */
    unavailable_mcps: UnavailableMcp[];
    iterations: number;
    stop_reason: StopReason;
    workflow_id: string;
    run_id: string;
    /** The model that answered (its name on the worker). */
    model: string;
    /** Tokens over the whole run. */
    usage: Usage;
    /** Tokens of each model step, in order. */
    step_usage: Usage[];
    /** The latest plan written with the `plan_task` tool (a DeepAgent's own plan is text). */
    plan?: unknown;
    /** A DeepAgent run's check of its answer (`skipped` without `verify`). */
    verification?: Verification;
    /** The conversation against the context budget after the last step (input tokens, compactions). */
    context?: ContextMetadata;
    /** Structured runs: the answer's text as the model wrote it (or the last text, when it stopped early). */
    text?: string;
    /** Structured runs: repair steps made (answers sent back because they did not match). */
    output_repairs?: number;
    /** A structured run that ended with `invalid_output`: what did not match, and the last answer. */
    output_error?: OutputFailure;
    /** Tool calls made, those of its sub-agents included. */
    tool_calls?: number;
    /** The sub-agent runs this run started (their usage is part of `usage`). */
    sub_runs?: SubRunSummary[];
    /** The agents that held the conversation, in order, when it was handed off (`transfer_to_<name>`). */
    handoffs?: string[];
    /** The agent that answered last (differs from the one started after a handoff). */
    agent?: string;
    /**
     * A run a quota refused at its start (`stop_reason: 'quota'`, nothing ran): which quota, and when
     * it frees up. The workflow completes (it did not fail); `result()` rejects with a `QuotaExceededError`.
     */
    refused?: QuotaExceededDetails;
    /** A run a guardrail ended (`stop_reason: 'guardrail'`): which check, and what it said. `result()` rejects with `GuardrailTripped`. */
    guardrail?: GuardrailTrip;
    /** Output guardrails' `retry` verdicts: steps taken again with their feedback. */
    guardrail_retries?: number;
  };
}

/**
 * What the `agentRun` and `deepAgentRun` workflows return: the result and the run's events, so that
 * a closed run's events are read without a worker. {@link AgentRunHandle.result} returns the result alone.
 */
export type AgentRunOutput<R extends AgentResult<unknown> = AgentResult<unknown>> = R & {
  events?: ClosedRunEvents;
};

/** An MCP server left out of a run, and why (a 401 names the credential key, never the token). */
export interface UnavailableMcp {
  server: string;
  reason: string;
}

/** Activity timeouts and retries, decided on the worker and handed to the workflow. */
export interface RunTimeouts {
  modelStartToCloseMs: number;
  /** A model step on a dead worker is retried elsewhere after this long without a heartbeat. */
  modelHeartbeatMs: number;
  modelMaxAttempts: number;
  toolStartToCloseMs: number;
  /** A tool call on a dead worker is retried elsewhere after this long without a heartbeat. */
  toolHeartbeatMs: number;
  toolMaxAttempts: number;
  /** Store writes the workflow decided on (a failed tool's error, refused calls): per attempt. */
  storeStartToCloseMs: number;
  storeMaxAttempts: number;
  /**
   * A tool's rate limit (429) whose Retry-After is longer than this waits on a durable workflow
   * timer, holding no worker slot, then the call is made again. Default 10,000 (absent in plans of
   * older workers: no such waits then).
   */
  longRetryAfterMs?: number;
  /**
   * A fast tool's budget (its local activity's one attempt): a call that overruns it is cancelled
   * and run again as a normal activity. Absent in plans from older workers.
   */
  fastToolStartToCloseMs?: number;
}

export interface ResolveRunInput {
  agent: string;
  model?: string;
  /**
   * For a chat session's turn: where its user message goes. A session keeps its system message at
   * position 0 (rewritten each turn with that turn's skills) and its turns after it.
   */
  startSeq?: number;
  /** A turn without tools (a deep run's plan or verdict). */
  noTools?: boolean;
  conversationId: string;
  prompt: string;
  maxIterations?: number;
  skills?: Array<string | Skill>;
  /** Whose credentials apply when the agent's MCP servers are listed. */
  tenant?: string;
  /**
   * The conversation was handed to this agent by a `transfer_to_<agent>` call: no new user message;
   * the activity answers the call at `seq` and gives the model the target's instructions.
   */
  handoff?: { from: string; call: ToolCall; seq: number };
  /** A DeepAgent's plan or execute phase: the agent's sub-agents are named for planning and delegation. */
  deepPhase?: 'plan' | 'execute';
  /** The start of a run or chat turn from outside: checked against the tenant's start quotas and recorded in the usage ledger. */
  admit?: boolean;
  /** The run's own `caching`. */
  caching?: CachingOption;
  /** The run's own choice of the agent's guardrails. */
  guardrails?: GuardrailSelection;
  /** A sub-agent run: its parent's agent, whose guardrails it runs when it has none of its own. */
  parentAgent?: string;
}

/** What `resolveRun` decided for this run; recorded in history, so replay sees the same. */
export interface ResolvedRun {
  /** The agent's input and output guardrails (names; the checks stay on the worker). */
  guardrails?: GuardrailPlan;
  /** The model's name on the worker. */
  model: string;
  /** The tools the model sees at first; `tool_search` results add more during the run. */
  tools: string[];
  maxIterations: number;
  /** How many messages the activity stored (system prompt, prompt). */
  messageCount: number;
  used_skills: string[];
  used_skill_tools: string[];
  unavailable_skill_tools: string[];
  /** MCP servers the selected skills name that this worker does not have or could not reach. */
  unavailable_skill_mcps?: string[];
  /** MCP servers whose tools could not be listed for this run, with why (absent when none failed). */
  unavailable_mcps?: UnavailableMcp[];
  timeouts: RunTimeouts;
  /** The agent definition's deadline and limits; a run's own options take precedence. */
  timeoutMs?: number;
  limits?: RunLimits;
  /** Tools whose calls are fast (carried by the next model step, or local activities); absent when none is. */
  fastTools?: string[];
  /** Tools that wait for approval; absent when none does. */
  approval?: ResolvedApproval;
  /** How long a call waits for a user's grant, and what then; absent when the agent has no `authorization`. */
  authorization?: ResolvedAuthorization;
  /** Batch interval of live text (`text_delta`); absent when the agent turned live text off. */
  textDeltaBatchMs?: number;
  /** The run's own `caching`; absent when the agent's applies. */
  caching?: CachingOption;
  /** The agent definition's `output` (a run's own wins); absent when it has none. */
  output?: OutputSpec;
  /** Sub-agent and handoff tools, and the nesting cap; absent when the agent delegates to none. */
  delegation?: ResolvedDelegation;
  /** The task queue of each tool whose credential key is rate-limited (`rateLimits`); absent when none is. */
  toolQueues?: Record<string, string>;
  /**
   * The task queue of each MCP server whose credential key is rate-limited: the calls of its tools
   * (`<server>_<tool>`) run there. Absent when none is (and in plans of older workers).
   */
  mcpQueues?: Record<string, string>;
  /**
   * Fast calls ride with the next model step (src/fast-tools/carried-calls.ts). Absent in plans from
   * older workers, whose histories replay their fast calls as the local activities they recorded.
   */
  carryFastCalls?: true;
  /**
   * The agent's long-term memory in this run (docs/memory.md): the resource it reads and writes (its
   * tenant's scope included), the ids of the messages recalled into the turn's prompt, and how many
   * turns of a chat session are condensed into observations at once (when the agent observes). Absent
   * when the agent has no `memory` or its `resource` answered none.
   */
  memory?: { resource: string; recalled: string[]; observeEveryTurns?: number };
}

export interface InvokeToolInput {
  agent: string;
  conversationId: string;
  seq: number;
  call: ToolCall;
  tenant?: string;
  /** Built-in and MCP tools the run's skills attached: callable in this run only. */
  skillTools?: string[];
  /** The tool guardrails the run chose (absent: all the agent's). */
  guardrails?: string[];
  /** Whose tool guardrails the call runs, when not its agent's (a sub-agent runs its parent's). */
  guardrailsOf?: string;
  /** The run's model, for tools that ask it (verify_output's judgement). */
  model?: string;
  /**
   * Attempts this call already had as a fast call (locally, or in the model step that carried it):
   * the normal activity's writes count on from there, so a late write of a fast attempt is refused.
   */
  attemptBase?: number;
}

/** A capped preview for the event stream; the full (capped) output is in the memory store. */
export interface ToolOutcome {
  preview: string;
  chars: number;
  truncated: boolean;
  /** The tool's structured metadata, when it is small enough to travel with the event. */
  metadata?: Record<string, unknown>;
  /** Tools the model may call from the next step on (found by `tool_search`). */
  loadTools?: string[];
  /** A skill the model loaded with `load_skill`: used from now on, its tools from the next step. */
  loadedSkill?: { id: string; tools: string[]; unavailableTools: string[] };
  /** The call needs the user's grant first: nothing was stored, the call runs again once granted. */
  authorization?: AuthorizationRequest;
  /** A tool guardrail tripped on the call (before it ran, or on its result): the run ends. */
  guardrail?: GuardrailTrip;
  /** A tool guardrail rejected the call (or its result): the model sees the check's message as its result. */
  rejected?: { check: string; phase: 'before' | 'after' };
  /** The provider rate-limited the call with a long Retry-After: nothing was stored, the call runs again after it. */
  rateLimited?: RateLimitedCall;
}

export interface AppendMessagesInput {
  agent: string;
  conversationId: string;
  seq: number;
  messages: Message[];
  /** A prompt rewritten in place (an input guardrail's): it keeps what long-term memory recalled for it. */
  keepRecalled?: true;
}

/** One child run, as `result.metadata.sub_runs` lists it. */
export interface SubRunSummary {
  /** The sub-agent's name in the parent (`agent_<name>`). */
  name: string;
  /** The agent the child ran. */
  agent: string;
  workflow_id: string;
  call_id: string;
  /** How it ended; `failed` when the child workflow failed. */
  stop_reason: StopReason | 'failed';
  usage: Usage;
  /** Tool calls the child made (its own children's included). */
  tool_calls: number;
}

/** How a DeepAgent's answer fared against its task. */
export interface Verification {
  verdict: 'pass' | 'fail' | 'skipped';
  feedback: string;
  /** Whether a failed check led to a revised answer. */
  revised: boolean;
}
