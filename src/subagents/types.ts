/**
 * Names and shapes of delegation (sub-agents and handoffs), shared by worker, workflow and client
 * code. Type imports only, so workflow code can use it.
 */
import type { RunLimits } from '../common/control.ts';

/** Tools that delegate to a sub-agent are named `agent_<name>`. */
export const SUB_AGENT_TOOL_PREFIX = 'agent_';
/** Tools that hand the conversation over are named `transfer_to_<name>`. */
export const HANDOFF_TOOL_PREFIX = 'transfer_to_';
/** How deep sub-agents may nest (a child of a child of a child) unless `maxSubAgentDepth` says otherwise. */
export const DEFAULT_MAX_SUB_AGENT_DEPTH = 3;

/** The query that answers a run's children that are running now (costs no history). */
export const SUB_RUNS_QUERY = 'toolkit.subRuns';

/** What the workflow knows of one sub-agent tool: which agent its calls start as a child run. */
export interface ResolvedSubAgent {
  /** The name the parent uses (`agent_<name>`). */
  name: string;
  /** The agent the child run starts (a served agent's name). */
  agent: string;
  /** The tool takes the sub-agent's own `input` schema: the call's arguments are the child's prompt, as JSON. */
  structuredInput?: boolean;
}

/** What the workflow knows of one handoff tool (`transfer_to_<name>`). */
export interface ResolvedHandoff {
  name: string;
  agent: string;
}

/** Delegation settings of a run, decided on the worker and handed to the workflow in its plan. */
export interface ResolvedDelegation {
  /** Sub-agent tools by tool name. */
  subAgents?: Record<string, ResolvedSubAgent>;
  /** Handoff tools by tool name. */
  handoffs?: Record<string, ResolvedHandoff>;
  /** The agent's nesting cap (`maxSubAgentDepth`). */
  maxSubAgentDepth?: number;
}

/**
 * What a child run is told of its parent (in its input): who started it, how deep it is, and the
 * limits that flow down (the parent's deadline, what is left of its budgets).
 */
export interface ParentRunInfo {
  workflowId: string;
  agent: string;
  /** The tool call that started this run. */
  callId: string;
  /** 1 for a child of a top-level run. */
  depth: number;
  /** The cap of the top-level run (children cannot raise it). */
  maxDepth: number;
  /** The parent's deadline (epoch ms, workflow time); the child stops with `deadline` then. */
  deadlineAt?: number;
  /** What is left of the parent's budgets when the child starts. */
  limits?: RunLimits;
}

/** A child run that is running now, as the {@link SUB_RUNS_QUERY} query answers it. */
export interface RunningSubRun {
  agent: string;
  workflow_id: string;
  call_id: string;
  depth: number;
}
