import type { RunLimits } from '../common/control.ts';
import type { ToolCall, Usage } from '../common/messages.ts';
import type { AgentRunInput, ResolvedRun, SubRunSummary, ToolOutcome } from '../common/run.ts';
import type { ModelStep } from '../common/model-step.ts';
import type { ContextMetadata } from '../context/types.ts';
import { addUsage } from '../subagents/workflow-limits.ts';
import type { RunLineCounts, RunLineStart } from '../usage/run-line.ts';
import type { Emit } from './event-log.ts';
import type { RunControl } from './run-control.ts';
import { RunSkills } from './run-skills.ts';

/** A tool call with its position in the stored conversation. */
export interface PlacedCall {
  call: ToolCall;
  seq: number;
}

/** What stays the same through a turn: the helpers of its loop share it. */
export interface TurnSetting {
  readonly input: AgentRunInput;
  readonly conversationId: string;
  readonly control: RunControl;
  /** The turn's budgets: its own and its agent's, capped by what its parent had left. */
  readonly limits: RunLimits | undefined;
  /** Emits an event with the turn's tags (a chat turn's `turn_id`, a deep run's `phase`). */
  readonly emit: Emit;
}

/** What a settled call changed for the run, applied to the run's state by its loop. */
export type CallEffect =
  /** A tool call's result: the tools it offers, the skill it loaded, the plan it wrote. */
  | { kind: 'tool'; call: ToolCall; outcome: ToolOutcome }
  /** A sub-agent run that ended: its usage and tool calls count in this run's. */
  | { kind: 'sub_run'; summary: SubRunSummary };

/** The state of a run as its helpers read it: they return outcomes, and the loop applies them. */
export interface RunView {
  /** The agent holding the conversation (another one after a handoff), and its plan. */
  readonly agent: string;
  readonly plan: ResolvedRun;
  /** The agents the conversation was handed to, in order. */
  readonly handoffs: readonly string[];
  /** The run's skills: those chosen at the start and those the model loaded. */
  readonly skills: RunSkills;
  /** The tools the model sees; grows when `tool_search` finds more or a skill is loaded. */
  readonly tools: readonly string[];
  /** Position of the next message in the stored conversation. */
  readonly seq: number;
  readonly usage: Readonly<Usage>;
  /** Tool calls made, those of sub-agents included. */
  readonly toolCalls: number;
  /** The start of the turn's ledger line, and what the loop counted for it so far. */
  readonly runLine: RunLineStart | undefined;
  readonly runLineCounts: RunLineCounts;
}

/**
 * What one turn's loop knows as it goes: where the conversation stands, what it spent, the calls
 * and sub-runs it made, the plan the model wrote, the agent holding it. Only the loop changes it
 * (src/workflows/run-loop.ts), by applying what its steps and calls answered.
 */
export class RunState implements RunView {
  /** The agent the turn was started for. */
  readonly startAgent: string;
  agent: string;
  plan: ResolvedRun;
  readonly handoffs: string[] = [];
  skills: RunSkills;
  tools: string[];
  seq: number;
  readonly usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  /** Each model step's usage, in order. */
  readonly stepUsage: Usage[] = [];
  toolCalls = 0;
  /** This loop's own tool calls by tool (its sub-agents count theirs), for the usage ledger. */
  readonly toolCallsByTool: Record<string, number> = {};
  /** The sub-agent runs this loop started. */
  readonly subRuns: SubRunSummary[] = [];
  /** The latest plan the model wrote with `plan_task`. */
  taskPlan: unknown;
  /** The text of the latest model step: a stopped run's output. */
  lastText = '';
  /** Model steps taken so far. */
  iterations = 0;
  /** Iterations taken before the last handoff: the new agent's `maxIterations` counts from there. */
  iterationBase = 0;
  /** The start of the turn's ledger line: with what the loop counts, each model step carries it. */
  readonly runLine: RunLineStart | undefined;
  /** Whether the last model step answered and wrote the turn's ledger line. */
  runRecorded = false;
  /** `metadata.context` of the result: the last step against the context budget. */
  context: ContextMetadata | undefined;
  /** Steps of the turn whose prompt cache a compaction broke (see `ContextMetadata.cache_breaks`). */
  #cacheBreaks = 0;

  constructor(agent: string, plan: ResolvedRun, runLine: RunLineStart | undefined) {
    this.startAgent = agent;
    this.agent = agent;
    this.plan = plan;
    this.seq = plan.messageCount;
    this.tools = [...plan.tools];
    this.skills = new RunSkills(plan);
    this.runLine = runLine;
  }

  /** What the turn's ledger line counts so far (see src/usage/run-line.ts). */
  get runLineCounts(): RunLineCounts {
    return {
      ...(this.agent !== this.startAgent ? { handedOffFrom: this.startAgent } : {}),
      subRuns: this.subRuns.length,
      toolCalls: this.toolCallsByTool,
    };
  }

  /** A step the model answered: the position, text, usage and context report move on. */
  took(step: ModelStep): void {
    this.runRecorded = step.runRecorded === true;
    this.seq += 1;
    this.lastText = step.text;
    this.stepUsage.push(step.usage ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0 });
    if (step.usage) addUsage(this.usage, step.usage);
    if (step.usage?.cache?.reason === 'compaction') this.#cacheBreaks += 1;
    if (step.context) {
      this.context = {
        input_tokens: step.usage?.input_tokens || step.context.input_tokens,
        estimated_input_tokens: step.context.input_tokens,
        max_input_tokens: step.context.max_input_tokens,
        compactions: step.context.compactions,
        ...(this.#cacheBreaks ? { cache_breaks: this.#cacheBreaks } : {}),
      };
    }
  }

  /** The step's calls are made: they count against the budget and in the ledger. */
  called(calls: readonly PlacedCall[]): void {
    this.toolCalls += calls.length;
    for (const { call } of calls)
      this.toolCallsByTool[call.name] = (this.toolCallsByTool[call.name] ?? 0) + 1;
  }

  /** What a settled call changed: tools offered from the next step on, skills, the plan, a sub-run's spending. */
  settled(effect: CallEffect): void {
    if (effect.kind === 'sub_run') {
      this.subRuns.push(effect.summary);
      addUsage(this.usage, effect.summary.usage);
      this.toolCalls += effect.summary.tool_calls;
      return;
    }
    const { call, outcome } = effect;
    for (const name of [...(outcome.loadTools ?? []), ...this.skills.absorb(outcome)])
      if (!this.tools.includes(name)) this.tools.push(name);
    if (call.name === 'plan_task' && outcome.metadata?.plan) this.taskPlan = outcome.metadata.plan;
  }

  /** The conversation was handed to `agent`: its plan from the next step on, its iterations counted from `iteration`. */
  handedOver(agent: string, plan: ResolvedRun, iteration: number): void {
    this.agent = agent;
    this.plan = plan;
    this.handoffs.push(agent);
    this.tools = [...plan.tools];
    this.skills = new RunSkills(plan);
    this.iterationBase = iteration;
  }
}
