import { ActivityFailure, ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { RunLimits, TextDeltaSignal } from '../common/control.ts';
import type { Message, ToolCall, Usage } from '../common/messages.ts';
import type { AgentRunInput, ModelStep, ResolvedRun, StopReason, SubRunSummary } from '../common/run.ts';
import { runLineSoFar, type RunLineCounts, type RunLineStart } from '../usage/run-line.ts';
import { ContextKeeper } from './context-keeper.ts';
import type { EventLog } from './event-log.ts';
import { mergeLimits, tokenBudgetSpent, toolBudgetSpent } from './limits.ts';
import { RunSkills } from './run-skills.ts';
import { modelActivities, storeActivities, toolActivities } from './quick-activities.ts';
import type { ControlledLoop, RunControl, StopRequest } from './run-control.ts';
import { askApproval, callNeedsApproval } from './tool-approval.ts';
import { invokeUntilAuthorized, type AuthorizedCallContext } from './authorization-wait.ts';
import { rateLimitAnswer, waitOutRateLimits } from '../rate-limits/workflow-wait.ts';
import { showStep } from '../visibility/current-details.ts';
import { StructuredAnswer } from '../output/structured-answer.ts';
import type { OutputFailure, OutputSpec } from '../output/types.ts';
import { runSubAgent, type SubAgentCaller } from '../subagents/workflow-child.ts';
import { MAX_HANDOFFS_PER_TURN, resolveHandoff, type PendingHandoff } from '../subagents/workflow-handoff.ts';
import { ToolCallRoutes } from './tool-call-routes.ts';
import { addUsage, childLimits, limitsLeft } from '../subagents/workflow-limits.ts';
import { quotaFailureMessage } from '../usage/failure-type.ts';
import { DEFAULT_MAX_SUB_AGENT_DEPTH, type ResolvedSubAgent } from '../subagents/types.ts';

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
 * stopped from outside. Tool calls of a step run in parallel (each after its approval, when it
 * needs one); their results are stored in call order, so every call is followed by its result —
 * calls that never ran are answered with why.
 */
export class RunLoop implements ControlledLoop {
  readonly usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  readonly stepUsage: Usage[] = [];
  /** The latest plan the model wrote with `plan_task`. */
  taskPlan: unknown;
  /** Keeps each step's request within the context budget (compacts, recovers from "prompt too long"). */
  readonly context: ContextKeeper;
  /** The run's skills: those chosen at the start and those the model loads. */
  skills: RunSkills;
  readonly #modelActivities: ReturnType<typeof toolActivities>;
  readonly #storeActivities: ReturnType<typeof toolActivities>;
  /** Where each tool call runs: its rate-limited queue, locally (fast tools), or as an activity. */
  readonly #routes: ToolCallRoutes;
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
  readonly #control: RunControl;
  readonly #limits: RunLimits | undefined;
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
  /** A transfer asked for in the current step. */
  #handoff: PendingHandoff | undefined;
  /** Store the answering agent with each assistant message (a conversation that is handed off). */
  readonly #labelAgent: boolean;
  /** Calls of the current step whose result is not stored yet, with their positions. */
  readonly #unanswered = new Map<string, { call: ToolCall; seq: number }>();
  /** Position of the model step in flight: live text of any other step is dropped. */
  #modelSeq: number | undefined;
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
    this.#control = control;
    this.#limits = childLimits(mergeLimits(input.limits, plan.limits), input.parent?.limits);
    this.#seq = plan.messageCount;
    this.#tools = [...plan.tools];
    this.skills = new RunSkills(plan);
    if (output) this.answer = new StructuredAnswer(output);
    const { timeouts } = plan;
    this.#modelActivities = modelActivities(timeouts);
    this.context = new ContextKeeper(this.#modelActivities, (type, message, payload) =>
      this.#emit(type, message, payload),
    );
    this.#routes = new ToolCallRoutes(plan, toolActivities(timeouts));
    this.#storeActivities = storeActivities(timeouts);
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
  #emit(type: Parameters<EventLog['emit']>[0], message: string, payload: Record<string, unknown> = {}): void {
    this.events.emit(type, message, { ...payload, ...this.#tags });
  }

  /** Runs the loop under the run's control; a stop answers what is left and ends it with its reason. */
  async run(): Promise<LoopOutcome> {
    this.#control.loop = this;
    try {
      return await this.#control.run(() => this.#loop());
    } catch (error) {
      const parentStopped =
        this.input.parent && !this.#control.stopRequest && CancellationScope.current().consideredCancelled;
      // A sub-agent run whose parent stopped (its workflow was cancelled) stops as a cancel does.
      if (parentStopped && isCancellation(error))
        this.#control.requestStop('cancelled', 'Its parent run was cancelled.');
      const stop = this.#control.stopRequest;
      if (!stop || !isCancellation(error)) throw error;
      return await CancellationScope.nonCancellable(() => this.#stopped(stop));
    } finally {
      this.#control.loop = undefined;
    }
  }

  /** Live text of the step in flight, as a `text_delta` event (dropped for any other step). */
  acceptTextDelta(delta: TextDeltaSignal): void {
    if (delta.seq !== this.#modelSeq || typeof delta.text !== 'string') return;
    this.#emit('text_delta', 'The model is writing', { text: delta.text, attempt: delta.attempt });
    if (this.answer && delta.partial !== undefined)
      this.#emit('partial_output', 'The answer so far', { output: delta.partial, attempt: delta.attempt });
  }

  async #loop(): Promise<LoopOutcome> {
    for (let iteration = 1; ; iteration++) {
      const tokens = tokenBudgetSpent(this.#limits, this.usage, this.stepUsage.at(-1));
      if (tokens) return this.#ended('budget', tokens);
      this.#iterations = iteration;
      this.#emit('step_started', `Step ${iteration} of at most ${this.plan.maxIterations}`, {
        iteration,
      });
      showStep(iteration, this.plan.maxIterations, this.#tags);
      const step = await this.#callModel().catch((error: unknown) => {
        const quota = quotaFailureMessage(error);
        if (quota === undefined) throw error;
        return quota;
      });
      if (typeof step === 'string') return this.#ended('quota', step);
      if (step.toolCalls.length === 0) {
        const ended = await this.#answered(step);
        if (ended) return ended;
        continue;
      }
      if (iteration - this.#iterationBase >= this.plan.maxIterations) {
        await this.#answer(
          step.toolCalls.map((call, i) => ({ call, seq: this.#seq + i })),
          `Not run: the agent reached its limit of ${this.plan.maxIterations} iterations.`,
        );
        this.#seq += step.toolCalls.length;
        return this.#ended('max_iterations');
      }
      const calls = step.toolCalls.map((call, i) => ({ call, seq: this.#seq + i }));
      this.#seq += calls.length;
      const over = toolBudgetSpent(this.#limits, this.#toolCalls, calls.length);
      if (over) {
        await this.#answer(calls, `Not run: ${over}`);
        return this.#ended('budget', over);
      }
      this.#toolCalls += calls.length;
      for (const entry of calls) {
        this.#unanswered.set(entry.call.id, entry);
        this.toolCallsByTool[entry.call.name] = (this.toolCallsByTool[entry.call.name] ?? 0) + 1;
      }
      const settled = await Promise.allSettled(calls.map(({ call, seq }) => this.#runTool(call, seq)));
      const failed = settled.find((outcome) => outcome.status === 'rejected');
      if (failed) throw failed.reason;
      if (this.#handoff) await this.#handOver(this.#handoff, iteration);
    }
  }

  /** Hands the conversation to another agent: its plan (model, instructions, tools, skills) from the next step on. */
  async #handOver(handoff: PendingHandoff, iteration: number): Promise<void> {
    const from = this.agent;
    this.#handoff = undefined;
    try {
      this.plan = await resolveHandoff(this.input, this.conversationId, from, handoff);
    } catch (error) {
      // A target this worker cannot resolve (not served here): the model hears why, and goes on.
      // (A local activity's failure arrives as the ApplicationFailure itself.)
      const failed = error instanceof ActivityFailure || error instanceof ApplicationFailure;
      if (!failed || isCancellation(error)) throw error;
      const message = (error instanceof ActivityFailure ? error.cause?.message : undefined) ?? error.message;
      return this.#failed(handoff.call, handoff.seq, `Not transferred: ${message}`, message, 'Handoff');
    }
    this.#unanswered.delete(handoff.call.id);
    this.agent = handoff.target;
    this.handoffs.push(handoff.target);
    this.#tools = [...this.plan.tools];
    this.skills = new RunSkills(this.plan);
    this.#routes.use(this.plan);
    this.#iterationBase = iteration;
    this.#emit('handoff', `${from} handed the conversation to ${handoff.target}`, {
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
    await this.#answer([...this.#unanswered.values()], `${verb}: ${stop.message}`);
    return this.#ended(stop.reason, stop.message);
  }

  /** Stores `content` as the result of each call, at the call's position. */
  async #answer(calls: Array<{ call: ToolCall; seq: number }>, content: string): Promise<void> {
    await Promise.all(
      calls.map(({ call, seq }) =>
        this.#storeActivities.appendMessages({
          agent: this.agent,
          conversationId: this.conversationId,
          seq,
          messages: [toolMessage(call, content, true)],
        }),
      ),
    );
    for (const { call } of calls) this.#unanswered.delete(call.id);
  }

  async #callModel(): Promise<ModelStep> {
    this.#modelSeq = this.#seq;
    const step = await this.context
      .callModel({
        agent: this.agent,
        ...(this.#labelAgent || this.plan.delegation?.handoffs || this.handoffs.length
          ? { labelAgent: true }
          : {}),
        model: this.plan.model,
        conversationId: this.conversationId,
        seq: this.#seq,
        tools: this.#tools,
        ...(this.input.tenant !== undefined ? { tenant: this.input.tenant } : {}),
        ...(this.plan.textDeltaBatchMs ? { textDeltaBatchMs: this.plan.textDeltaBatchMs } : {}),
        ...(this.answer ? { output: { schema: this.answer.spec.schema } } : {}),
        ...(this.runLine ? { runLine: runLineSoFar(this.runLine, this.runLineCounts) } : {}),
      })
      .finally(() => {
        this.#modelSeq = undefined;
      });
    this.runRecorded = step.runRecorded === true;
    this.#seq += 1;
    this.#lastText = step.text;
    if (step.reasoning) {
      this.#emit('reasoning_started', 'The model is reasoning');
      this.#emit('reasoning_completed', 'The model finished reasoning', { reasoning: step.reasoning });
    }
    this.stepUsage.push(step.usage ?? { input_tokens: 0, output_tokens: 0, total_tokens: 0 });
    if (step.usage) {
      this.usage.input_tokens += step.usage.input_tokens;
      this.usage.output_tokens += step.usage.output_tokens;
      this.usage.total_tokens += step.usage.total_tokens;
    }
    return step;
  }

  /** A `transfer_to_<agent>` call: carried out after the step's other calls (one per step). */
  async #transfer(call: ToolCall, seq: number, target: string): Promise<void> {
    if (this.#handoff || this.handoffs.length >= MAX_HANDOFFS_PER_TURN) {
      const why = this.#handoff
        ? `the conversation is already being transferred to ${this.#handoff.target}`
        : `a turn hands the conversation over at most ${MAX_HANDOFFS_PER_TURN} times`;
      await this.#answer([{ call, seq }], `Not transferred: ${why}.`);
      return;
    }
    this.#handoff = { target, call, seq };
  }

  /** A sub-agent call: a child run, its answer stored as the call's result, its usage added to this run's. */
  async #delegate(call: ToolCall, seq: number, sub: ResolvedSubAgent): Promise<void> {
    const caller: SubAgentCaller = {
      agent: this.agent,
      ...(this.input.tenant !== undefined ? { tenant: this.input.tenant } : {}),
      depth: this.input.parent?.depth ?? 0,
      maxDepth:
        this.input.parent?.maxDepth ?? this.plan.delegation?.maxSubAgentDepth ?? DEFAULT_MAX_SUB_AGENT_DEPTH,
      ...(this.#control.deadlineAt !== undefined ? { deadlineAt: this.#control.deadlineAt } : {}),
      limitsLeft: limitsLeft(this.#limits, this.usage, this.#toolCalls),
      running: this.#control.subRuns,
      emit: (type, message, payload) => this.#emit(type, message, payload),
    };
    let child: SubRunSummary | undefined;
    const outcome = await runSubAgent(caller, sub, call, (summary) => {
      child = summary;
      this.subRuns.push(summary);
      addUsage(this.usage, summary.usage);
      this.#toolCalls += summary.tool_calls;
    });
    await this.#storeActivities.appendMessages({
      agent: this.agent,
      conversationId: this.conversationId,
      seq,
      messages: [toolMessage(call, outcome.content, outcome.isError)],
    });
    const about = {
      tool: call.name,
      call_id: call.id,
      child_agent: sub.agent,
      ...(child ? { child_run: child.workflow_id, stop_reason: child.stop_reason, usage: child.usage } : {}),
    };
    const preview = outcome.content.slice(0, 2000);
    if (outcome.isError) {
      this.#emit('tool_failed', `${call.name} failed: ${preview}`, {
        ...about,
        error: preview,
        error_type: 'SubAgent',
      });
    } else {
      this.#emit('tool_completed', `${call.name} completed (${outcome.content.length} characters)`, {
        ...about,
        output: preview,
        truncated: preview.length < outcome.content.length,
      });
    }
    this.#unanswered.delete(call.id);
  }

  /** How a call that needs the user's grant waits (authorization-wait.ts). */
  #authorizing(call: ToolCall): AuthorizedCallContext {
    return {
      authorizations: this.#control.authorizations,
      settings: this.plan.authorization,
      call,
      agent: this.input.agent,
      emit: (type, message, payload) => this.#emit(type, message, payload),
      stop: (message) => this.#control.requestStop('authorization_timeout', message),
    };
  }

  async #runTool(call: ToolCall, seq: number): Promise<void> {
    const ids = { tool: call.name, call_id: call.id };
    const delegation = this.plan.delegation;
    const handoff = delegation?.handoffs?.[call.name];
    if (handoff) return this.#transfer(call, seq, handoff.agent);
    // Sub-agent calls and tool calls wait for approval alike.
    if (await callNeedsApproval(this.plan, call, { agent: this.agent, tenant: this.input.tenant })) {
      const emit = this.#emit.bind(this);
      const decision = await askApproval(this.#control.approvals, call, this.plan.approval!.timeoutMs, emit);
      if (!decision.approved) {
        await this.#answer([{ call, seq }], `declined: ${decision.reason}`);
        return;
      }
    }
    const sub = delegation?.subAgents?.[call.name];
    if (sub) return this.#delegate(call, seq, sub);
    this.#emit('tool_called', `Calling ${call.name}`, { ...ids, args: call.args });
    try {
      const input = {
        agent: this.agent,
        conversationId: this.conversationId,
        seq,
        call,
        tenant: this.input.tenant,
        ...(this.skills.tools.length ? { skillTools: [...this.skills.tools] } : {}),
        model: this.plan.model,
      };
      const invoke = () => this.#routes.invoke(input);
      const waiting = { call, deadlineAt: this.#control.deadlineAt, emit: this.#emit.bind(this) };
      const outcome = await invokeUntilAuthorized(this.#authorizing(call), () =>
        waitOutRateLimits(waiting, invoke),
      );
      if (!('notAuthorized' in outcome) && outcome.rateLimited) {
        const message = rateLimitAnswer(outcome, this.#control.deadlineAt);
        return this.#failed(call, seq, `Error (RateLimitError): ${message}`, message, 'RateLimitError');
      }
      if ('notAuthorized' in outcome) {
        const why = outcome.notAuthorized;
        return this.#failed(call, seq, why, why, 'AuthorizationTimeout');
      }
      for (const name of [...(outcome.loadTools ?? []), ...this.skills.absorb(outcome)])
        if (!this.#tools.includes(name)) this.#tools.push(name);
      if (call.name === 'plan_task' && outcome.metadata?.plan) this.taskPlan = outcome.metadata.plan;
      const size = outcome.truncated
        ? `${outcome.chars} characters, truncated`
        : `${outcome.chars} characters`;
      this.#emit('tool_completed', `${call.name} completed (${size})`, {
        ...ids,
        output: outcome.preview,
        truncated: outcome.truncated,
        ...(outcome.metadata ? { metadata: outcome.metadata } : {}),
      });
      this.#unanswered.delete(call.id);
    } catch (error) {
      // A cancelled call is answered by the stop (#stopped), not as a failure.
      if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
      const cause = error.cause;
      const message = cause?.message ?? error.message;
      const errorType = cause instanceof ApplicationFailure ? (cause.type ?? 'Error') : 'Error';
      await this.#failed(call, seq, `Error (${errorType}): ${message}`, message, errorType);
    }
  }

  /** A call that failed for good: `content` is its result for the model, and `tool_failed` says why. */
  async #failed(
    call: ToolCall,
    seq: number,
    content: string,
    error: string,
    errorType: string,
  ): Promise<void> {
    await this.#answer([{ call, seq }], content);
    this.#emit('tool_failed', `${call.name} failed: ${error}`, {
      tool: call.name,
      call_id: call.id,
      error,
      error_type: errorType,
    });
  }
}

function toolMessage(call: ToolCall, content: string, isError: boolean): Message {
  return { role: 'tool', toolCallId: call.id, toolName: call.name, content, ...(isError ? { isError } : {}) };
}

const STOPPED: Record<StopRequest['reason'], string> = {
  deadline: 'Stopped at the deadline',
  cancelled: 'Cancelled',
  authorization_timeout: 'Stopped',
};
