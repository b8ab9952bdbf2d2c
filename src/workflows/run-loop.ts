import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { RunLimits, TextDeltaSignal } from '../common/control.ts';
import type { Usage } from '../common/messages.ts';
import type {
  AgentRunInput,
  CallModelInput,
  CarriedCalls,
  ModelStep,
  ResolvedRun,
  StopReason,
  SubRunSummary,
} from '../common/run.ts';
import type { OpenedRun } from '../common/opening.ts';
import { runLineSoFar, type RunLineCounts, type RunLineStart } from '../usage/run-line.ts';
import { ContextKeeper } from './context-keeper.ts';
import type { EventLog } from './event-log.ts';
import { mergeLimits, tokenBudgetSpent, toolBudgetSpent } from './limits.ts';
import { RunSkills } from './run-skills.ts';
import { modelActivities, storeActivities, toolActivities } from './quick-activities.ts';
import type { ControlledLoop, RunControl, StopRequest } from './run-control.ts';
import { StructuredAnswer } from '../output/structured-answer.ts';
import type { OutputFailure, OutputSpec } from '../output/types.ts';
import { resolveHandoff, type PendingHandoff } from '../subagents/workflow-handoff.ts';
import { ToolCalls, type ToolCallHost } from './tool-calls.ts';
import { childLimits } from '../subagents/workflow-limits.ts';
import { quotaFailureMessage } from '../usage/failure-type.ts';
import { carriable, carriedCalls } from '../fast-tools/workflow-carried-calls.ts';
import { modelStepInput } from '../common/step-input.ts';
import { ModelSteps } from './model-steps.ts';

/** How one turn's loop ended. */
export interface LoopOutcome {
  output: string;
  stopReason: StopReason;
  iterations: number;
  /** Why a stop from outside (cancel, deadline) or a budget ended it. */
  stopMessage?: string;
  /** A structured run's checked answer (when it completed). */
  value?: unknown;
  /** A structured run that ended with `invalid_output`. */
  outputFailure?: OutputFailure;
}

/**
 * The loop of one turn (DESIGN.md section 3): call the model and the tools it asks for until it
 * answers without tool calls, `maxIterations` is reached, a budget would be passed, or the run is
 * stopped from outside. The calls of a step run in parallel (src/workflows/tool-calls.ts), or ride
 * with the next model step when all are fast (src/fast-tools/carried-calls.ts); every call is
 * followed by its result, and calls that never ran are answered with why.
 */
export class RunLoop implements ControlledLoop, ToolCallHost {
  readonly usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  readonly stepUsage: Usage[] = [];
  /** The latest plan the model wrote with `plan_task`. */
  taskPlan: unknown;
  /** Keeps each step's request within the context budget (compacts, recovers from "prompt too long"). */
  readonly context: ContextKeeper;
  /** The run's skills: those chosen at the start and those the model loads. */
  skills: RunSkills;
  readonly #storeActivities: ReturnType<typeof storeActivities>;
  /** The calls of the turn's steps: where each runs, how it waits and is settled. */
  readonly #calls: ToolCalls;
  readonly input: AgentRunInput;
  /** The turn's plan: replaced when the conversation is handed to another agent. */
  plan: ResolvedRun;
  /** The agent holding the conversation (another one after a handoff). */
  agent: string;
  /** The agents the conversation was handed to, in order. */
  readonly handoffs: string[] = [];
  /** The sub-agent runs this loop started. */
  readonly subRuns: SubRunSummary[] = [];
  /** This loop's own tool calls by tool (its sub-agents count theirs), for the usage ledger. */
  readonly toolCallsByTool: Record<string, number> = {};
  /** The start of the turn's ledger line: with what the loop counts, each model step carries it, and the answering step writes it. */
  runLine: RunLineStart | undefined;
  /** Whether the last model step answered and wrote the turn's ledger line. */
  runRecorded = false;
  readonly conversationId: string;
  readonly events: EventLog;
  readonly control: RunControl;
  readonly limits: RunLimits | undefined;
  /** Position of the next message in the stored conversation. */
  #seq: number;
  /** The tools the model sees; grows when `tool_search` finds more. */
  #tools: string[];
  /** The text of the latest model step: a stopped run's output. */
  #lastText = '';
  #iterations = 0;
  #toolCalls = 0;
  /** Iterations taken before the last handoff: the new agent's `maxIterations` counts from there. */
  #iterationBase = 0;
  /** Store the answering agent with each assistant message (a conversation that is handed off). */
  readonly #labelAgent: boolean;
  /** Each iteration's model step (the opening step's, a carried step, or one asked for now) and its live text. */
  readonly #steps: ModelSteps;
  /** A structured run's answer (checks, repairs); undefined for a run that answers in text. */
  readonly answer: StructuredAnswer | undefined;

  /** Added to the payload of every event: a chat turn's `turn_id`, a deep run's `phase`. */
  readonly #tags: Record<string, unknown>;

  constructor(
    input: AgentRunInput,
    plan: ResolvedRun,
    conversationId: string,
    events: EventLog,
    control: RunControl,
    tags: Record<string, unknown> = {},
    output?: OutputSpec,
    labelAgent = false,
  ) {
    this.#tags = tags;
    this.input = input;
    this.agent = input.agent;
    this.plan = plan;
    this.#labelAgent = labelAgent;
    this.conversationId = conversationId;
    this.events = events;
    this.control = control;
    this.limits = childLimits(mergeLimits(input.limits, plan.limits), input.parent?.limits);
    this.#seq = plan.messageCount;
    this.#tools = [...plan.tools];
    this.skills = new RunSkills(plan);
    if (output) this.answer = new StructuredAnswer(output);
    const { timeouts } = plan;
    this.context = new ContextKeeper(modelActivities(timeouts), this.emit);
    this.#storeActivities = storeActivities(timeouts);
    this.#calls = new ToolCalls(this, toolActivities(timeouts), this.#storeActivities);
    this.#steps = new ModelSteps(this, this.#calls, tags);
  }

  /** What the turn's ledger line counts so far (see src/usage/run-line.ts). */
  get runLineCounts(): RunLineCounts {
    return {
      ...(this.agent !== this.input.agent ? { handedOffFrom: this.input.agent } : {}),
      subRuns: this.subRuns.length,
      toolCalls: this.toolCallsByTool,
    };
  }

  /** Model steps taken so far. */
  get iterations(): number {
    return this.#iterations;
  }

  /** Tool calls made, those of sub-agents included. */
  get toolCalls(): number {
    return this.#toolCalls;
  }

  /** Position of the next message: where the next turn of a session continues. */
  get seq(): number {
    return this.#seq;
  }

  /** Events carry the turn's tags, so a reader can follow its own turn or phase. */
  readonly emit = (
    type: Parameters<EventLog['emit']>[0],
    message: string,
    payload: Record<string, unknown> = {},
  ): void => {
    this.events.emit(type, message, { ...payload, ...this.#tags });
  };

  /** A structured turn: its answer is checked, and live text brings the answer so far. */
  get structured(): boolean {
    return this.answer !== undefined;
  }

  /** See {@link ModelSteps.opened}. */
  opened(opened: Pick<OpenedRun, 'step' | 'failure'>, started: boolean): void {
    this.#steps.opened(opened, started);
  }

  /** The input of a model step at the loop's position (carrying the fast calls of the step before). */
  stepInput(carried?: CarriedCalls): CallModelInput {
    return modelStepInput({
      agent: this.agent,
      plan: this.plan,
      conversationId: this.conversationId,
      seq: this.#seq,
      tools: this.#tools,
      ...(this.input.tenant !== undefined ? { tenant: this.input.tenant } : {}),
      labelAgent:
        this.#labelAgent || this.plan.delegation?.handoffs !== undefined || this.handoffs.length > 0,
      ...(this.answer ? { output: this.answer.spec.schema } : {}),
      ...(this.runLine ? { runLine: runLineSoFar(this.runLine, this.runLineCounts) } : {}),
      ...(carried ? { carried } : {}),
    });
  }

  offerTools(names: readonly string[]): void {
    for (const name of names) if (!this.#tools.includes(name)) this.#tools.push(name);
  }

  addToolCalls(count: number): void {
    this.#toolCalls += count;
  }

  /** Runs the loop under the run's control; a stop answers what is left and ends it with its reason. */
  async run(): Promise<LoopOutcome> {
    this.control.loop = this;
    try {
      return await this.control.run(() => this.#loop());
    } catch (error) {
      const parentStopped =
        this.input.parent && !this.control.stopRequest && CancellationScope.current().consideredCancelled;
      // A sub-agent run whose parent stopped (its workflow was cancelled) stops as a cancel does.
      if (parentStopped && isCancellation(error))
        this.control.requestStop('cancelled', 'Its parent run was cancelled.');
      const stop = this.control.stopRequest;
      if (!stop || !isCancellation(error)) throw error;
      return await CancellationScope.nonCancellable(() => this.#stopped(stop));
    } finally {
      this.control.loop = undefined;
    }
  }

  acceptTextDelta(delta: TextDeltaSignal): void {
    this.#steps.acceptTextDelta(delta);
  }

  async #loop(): Promise<LoopOutcome> {
    for (let iteration = 1; ; iteration++) {
      const tokens = tokenBudgetSpent(this.limits, this.usage, this.stepUsage.at(-1));
      if (tokens) return this.#ended('budget', tokens);
      this.#iterations = iteration;
      // try/catch and try/finally rather than .catch()/.finally() on the hot path: the SDK records a
      // stack for every promise a workflow makes, the largest share of a model step's workflow task.
      let step: ModelStep;
      try {
        step = this.#took(await this.#steps.take(iteration));
      } catch (error) {
        const quota = quotaFailureMessage(error);
        if (quota === undefined) throw error;
        return this.#ended('quota', quota);
      }
      if (step.toolCalls.length === 0) {
        const ended = await this.#answered(step);
        if (ended) return ended;
        continue;
      }
      if (iteration - this.#iterationBase >= this.plan.maxIterations) {
        await this.#calls.answer(
          step.toolCalls.map((call, i) => ({ call, seq: this.#seq + i })),
          `Not run: the agent reached its limit of ${this.plan.maxIterations} iterations.`,
        );
        this.#seq += step.toolCalls.length;
        return this.#ended('max_iterations');
      }
      const calls = step.toolCalls.map((call, i) => ({ call, seq: this.#seq + i }));
      this.#seq += calls.length;
      const over = toolBudgetSpent(this.limits, this.#toolCalls, calls.length);
      if (over) {
        await this.#calls.answer(calls, `Not run: ${over}`);
        return this.#ended('budget', over);
      }
      this.#toolCalls += calls.length;
      this.#calls.begin(calls);
      for (const { call } of calls)
        this.toolCallsByTool[call.name] = (this.toolCallsByTool[call.name] ?? 0) + 1;
      if (carriable(this.plan, calls) && !tokenBudgetSpent(this.limits, this.usage, this.stepUsage.at(-1))) {
        // Fast calls ride with the next model step: no workflow task or local activity of their own.
        for (const { call } of calls) this.#calls.called(call);
        this.#steps.carry(carriedCalls(this.plan, calls, this.skills.tools));
        continue;
      }
      await this.#calls.run(calls);
      const handoff = this.#calls.takeHandoff();
      if (handoff) await this.#handOver(handoff, iteration);
    }
  }

  /** Hands the conversation to another agent: its plan (model, instructions, tools, skills) from the next step on. */
  async #handOver(handoff: PendingHandoff, iteration: number): Promise<void> {
    const from = this.agent;
    try {
      this.plan = await resolveHandoff(this.input, this.conversationId, from, handoff);
    } catch (error) {
      // A target this worker cannot resolve (not served here): the model hears why, and goes on.
      // (A local activity's failure arrives as the ApplicationFailure itself.)
      const failed = error instanceof ActivityFailure || error instanceof ApplicationFailure;
      if (!failed || isCancellation(error)) throw error;
      const message = (error instanceof ActivityFailure ? error.cause?.message : undefined) ?? error.message;
      return this.#calls.failed(handoff.call, handoff.seq, `Not transferred: ${message}`, message, 'Handoff');
    }
    this.#calls.answered(handoff.call.id);
    this.agent = handoff.target;
    this.handoffs.push(handoff.target);
    this.#tools = [...this.plan.tools];
    this.skills = new RunSkills(this.plan);
    this.#calls.use(this.plan);
    this.#iterationBase = iteration;
    this.emit('handoff', `${from} handed the conversation to ${handoff.target}`, {
      from,
      to: handoff.target,
      call_id: handoff.call.id,
    });
  }

  /**
   * An answer: it ends a text run; a structured run's answer is accepted, sent back with what did
   * not match (a user message, stored as a durable step; undefined is returned and the loop goes on),
   * or, when no repairs are left, ends the run with `invalid_output`.
   */
  async #answered(step: ModelStep): Promise<LoopOutcome | undefined> {
    if (!this.answer) return this.#ended('completed');
    const verdict = this.answer.accept(step.text, step.output);
    if (verdict.kind === 'accepted') return { ...this.#ended('completed'), value: verdict.value };
    if (verdict.kind === 'failed')
      return { ...this.#ended('invalid_output', verdict.message), outputFailure: verdict.failure };
    await this.#storeActivities.appendMessages({
      agent: this.agent,
      conversationId: this.conversationId,
      seq: this.#seq,
      messages: [{ role: 'user', content: verdict.message }],
    });
    this.#seq += 1;
    return undefined;
  }

  #ended(stopReason: StopReason, stopMessage?: string): LoopOutcome {
    return {
      output: this.#lastText,
      stopReason,
      iterations: this.#iterations,
      ...(stopMessage ? { stopMessage } : {}),
    };
  }

  /** After a stop: the calls that did not finish get a result saying so, so the conversation stays paired. */
  async #stopped(stop: StopRequest): Promise<LoopOutcome> {
    const verb = STOPPED[stop.reason];
    await this.#calls.answerWaiting(`${verb}: ${stop.message}`);
    return this.#ended(stop.reason, stop.message);
  }

  /** A step the model answered: the loop's position, text and usage move on. */
  #took(step: ModelStep): ModelStep {
    this.runRecorded = step.runRecorded === true;
    this.#seq += 1;
    this.#lastText = step.text;
    if (step.reasoning) {
      this.emit('reasoning_started', 'The model is reasoning');
      this.emit('reasoning_completed', 'The model finished reasoning', { reasoning: step.reasoning });
    }
    this.stepUsage.push(step.usage ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0 });
    if (step.usage) {
      this.usage.input_tokens += step.usage.input_tokens;
      this.usage.output_tokens += step.usage.output_tokens;
      this.usage.total_tokens += step.usage.total_tokens;
    }
    return step;
  }
}

const STOPPED: Record<StopRequest['reason'], string> = {
  deadline: 'Stopped at the deadline',
  cancelled: 'Cancelled',
  authorization_timeout: 'Stopped',
};
