import { CancellationScope, isCancellation, patched } from '@temporalio/workflow';
import type { TextDeltaSignal } from '../common/control.ts';
import type { AgentRunInput, ResolvedRun, StopReason } from '../common/run.ts';
import type { ModelStep } from '../common/model-step.ts';
import type { OpenedRun } from '../common/opening.ts';
import { carriable, carriedCalls } from '../fast-tools/workflow-carried-calls.ts';
import { StructuredAnswer } from '../output/structured-answer.ts';
import type { OutputFailure, OutputSpec } from '../output/types.ts';
import { handOver } from '../subagents/workflow-handoff.ts';
import { childLimits } from '../subagents/workflow-limits.ts';
import { quotaFailureMessage } from '../usage/failure-type.ts';
import type { RunLineStart } from '../usage/run-line.ts';
import { ContextKeeper } from './context-keeper.ts';
import type { EventLog } from './event-log.ts';
import { mergeLimits, tokenBudgetSpent, toolBudgetSpent } from './limits.ts';
import { ModelSteps } from './model-steps.ts';
import { modelActivities, storeActivities, toolActivities } from './quick-activities.ts';
import type { ControlledLoop, RunControl, StopRequest } from './run-control.ts';
import { RunState, type TurnSetting } from './run-state.ts';
import type { StepText } from './step-text.ts';
import type { GuardrailTrip } from '../guardrails/recorded.ts';
import { withdrawnText, type TurnGuardrails } from '../guardrails/workflow-checks.ts';
import { takeBesideInputChecks } from '../guardrails/workflow-parallel.ts';
import { DEFAULT_OUTPUT_REPAIRS } from '../output/types.ts';
import { ToolCalls } from './tool-calls.ts';

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
  /** A run a guardrail ended (`guardrail`). */
  guardrail?: GuardrailTrip;
}

/** What a turn's loop is made of. */
export interface RunLoopOptions {
  input: AgentRunInput;
  /** The turn's plan (src/activities/resolve-run.ts). */
  plan: ResolvedRun;
  conversationId: string;
  events: EventLog;
  control: RunControl;
  /** Added to the payload of every event: a chat turn's `turn_id`, a deep run's `phase`. */
  tags?: Record<string, unknown>;
  /** A structured turn's schema and repairs; absent for a turn that answers in text. */
  output?: OutputSpec | undefined;
  /** Store the answering agent with each assistant message (a conversation that was handed off). */
  labelAgent?: boolean | undefined;
  /** The start of the turn's ledger line, when the usage ledger is on: each model step carries it. */
  runLine?: RunLineStart | undefined;
  /**
   * The turn's input and output guardrails (src/guardrails), and the prompt its input checks see:
   * blocking ones run before the first step, parallel ones beside it.
   */
  guardrails?:
    { checks: TurnGuardrails; prompt: string | undefined; prefix?: string | undefined } | undefined;
  /** What the turn's opening step did: the first model step it took, and whether its live text said so. */
  opened?:
    (Pick<OpenedRun, 'step' | 'failure'> & { started: boolean; liveText?: StepText | undefined }) | undefined;
}

/**
 * The loop of one turn: call the model and the tools it asks for until it answers without tool
 * calls, `maxIterations` is reached, a budget would be passed, or the run is stopped from outside.
 * The calls of a step run in parallel (src/workflows/tool-calls.ts), or ride with the next model
 * step when all are fast (src/fast-tools/carried-calls.ts); every call is followed by its result,
 * and calls that never ran are answered with why. What the run knows is its {@link RunState}: the
 * loop alone changes it, with what its steps and calls answer.
 */
export class RunLoop implements ControlledLoop {
  readonly #state: RunState;
  readonly #setting: TurnSetting;
  /** A structured run's answer (checks, repairs); undefined for a run that answers in text. */
  readonly answer: StructuredAnswer | undefined;
  readonly #store: ReturnType<typeof storeActivities>;
  /** The calls of the turn's steps: where each runs, how it waits and is settled. */
  readonly #calls: ToolCalls;
  /** Each iteration's model step (the opening step's, a carried step, or one asked for now) and its live text. */
  readonly #steps: ModelSteps;
  readonly #guardrails: RunLoopOptions['guardrails'];
  /** Answers sent back by output guardrails (`retry`), in a text run (a structured run counts them as repairs). */
  guardrailRetries = 0;
  readonly #retryLimit: number;
  /** The prompt as the input checks left it (a replaced one), when it was replaced. */
  replacedPrompt: string | undefined;

  constructor(options: RunLoopOptions) {
    const { input, plan, events, control } = options;
    const tags = options.tags ?? {};
    this.#state = new RunState(input.agent, plan, options.runLine);
    this.#setting = {
      input,
      conversationId: options.conversationId,
      control,
      limits: childLimits(mergeLimits(input.limits, plan.limits), input.parent?.limits),
      emit: (type, message, payload = {}) => events.emit(type, message, { ...payload, ...tags }),
    };
    if (options.output) this.answer = new StructuredAnswer(options.output);
    this.#guardrails = options.guardrails;
    this.#retryLimit =
      options.output?.repairs ?? input.outputRepairs ?? plan.output?.repairs ?? DEFAULT_OUTPUT_REPAIRS;
    const { timeouts } = plan;
    this.#store = storeActivities(timeouts);
    this.#calls = new ToolCalls({
      setting: this.#setting,
      run: this.#state,
      settled: (effect) => this.#state.settled(effect),
      tools: toolActivities(timeouts),
      store: this.#store,
    });
    this.#steps = new ModelSteps({
      setting: this.#setting,
      run: this.#state,
      calls: this.#calls,
      context: new ContextKeeper(
        modelActivities(timeouts),
        this.#setting.emit,
        () => this.#setting.control.deadlineAt,
      ),
      tags,
      output: this.answer?.spec.schema,
      labelAgent: options.labelAgent === true,
      opened: options.opened,
    });
  }

  /** What the run knows: read by the turn for its result. */
  get state(): Readonly<RunState> {
    return this.#state;
  }

  /** Runs the loop under the run's control; a stop answers what is left and ends it with its reason. */
  async run(): Promise<LoopOutcome> {
    const { control, input } = this.#setting;
    control.loop = this;
    try {
      return await control.run(() => this.#loop());
    } catch (error) {
      const parentStopped =
        input.parent && !control.stopRequest && CancellationScope.current().consideredCancelled;
      // A sub-agent run whose parent stopped (its workflow was cancelled) stops as a cancel does.
      if (parentStopped && isCancellation(error))
        control.requestStop('cancelled', 'Its parent run was cancelled.');
      const stop = control.stopRequest;
      if (!stop || !isCancellation(error)) throw error;
      return await CancellationScope.nonCancellable(() => this.#stopped(stop));
    } finally {
      control.loop = undefined;
    }
  }

  acceptTextDelta(delta: TextDeltaSignal): void {
    this.#steps.acceptTextDelta(delta);
  }

  async #loop(): Promise<LoopOutcome> {
    const state = this.#state;
    const { limits } = this.#setting;
    const guard = this.#guardrails;
    const prompt = guard?.prompt;
    if (guard && prompt !== undefined && guard.checks.hasInput('blocking')) {
      const checked = await guard.checks.input(prompt, 'blocking');
      if ('trip' in checked) return this.#tripped(checked.trip, state.seq - 1, 'user');
      if (checked.replaced) await this.#replacePrompt(checked.prompt);
    }
    const beside =
      guard && prompt !== undefined && guard.checks.hasInput('parallel') ? guard.checks : undefined;
    for (let iteration = 1; ; iteration++) {
      const tokens = tokenBudgetSpent(limits, state.usage, state.stepUsage.at(-1));
      if (tokens) return this.#ended('budget', tokens);
      state.iterations = iteration;
      // try/catch and try/finally rather than .catch()/.finally() on the hot path: the SDK records a
      // stack for every promise a workflow makes, the largest share of a model step's workflow task.
      let step: ModelStep;
      try {
        if (iteration === 1 && beside) {
          const taken = await takeBesideInputChecks(
            () => this.#steps.take(iteration),
            () => beside.input(prompt!, 'parallel'),
          );
          if ('trip' in taken) {
            // The step answered before the check tripped: its stored answer is withdrawn too.
            if (taken.answered) await this.#rewrite(state.seq, 'assistant', withdrawnText(taken.trip));
            return this.#tripped(taken.trip, state.seq - 1, 'user');
          }
          step = taken;
        } else step = await this.#steps.take(iteration);
      } catch (error) {
        const quota = quotaFailureMessage(error);
        if (quota === undefined) throw error;
        return this.#ended('quota', quota);
      }
      // A streaming output check withdrew the answer as it was written: nothing of it was stored.
      if (step.guardrail) return this.#tripped(step.guardrail);
      this.#took(step);
      // A tool guardrail tripped on a call this step carried (fast calls that rode with it).
      const carriedTrip = this.#calls.takeTrip();
      if (carriedTrip) return this.#tripped(carriedTrip);
      if (step.toolCalls.length === 0) {
        const ended = await this.#answered(step);
        if (ended) return ended;
        continue;
      }
      const calls = step.toolCalls.map((call, i) => ({ call, seq: state.seq + i }));
      state.seq += calls.length;
      if (iteration - state.iterationBase >= state.plan.maxIterations) {
        await this.#calls.answer(
          calls,
          `Not run: the agent reached its limit of ${state.plan.maxIterations} iterations.`,
        );
        return this.#ended('max_iterations');
      }
      const over = toolBudgetSpent(limits, state.toolCalls, calls.length);
      if (over) {
        await this.#calls.answer(calls, `Not run: ${over}`);
        return this.#ended('budget', over);
      }
      state.called(calls);
      this.#calls.begin(calls);
      if (carriable(state.plan, calls) && !tokenBudgetSpent(limits, state.usage, state.stepUsage.at(-1))) {
        // Fast calls ride with the next model step: no workflow task or local activity of their own.
        for (const { call } of calls) this.#calls.called(call);
        this.#steps.carry(carriedCalls(state.plan, calls, state.skills.tools));
        continue;
      }
      await this.#calls.run(calls);
      const trip = this.#calls.takeTrip();
      if (trip) return this.#tripped(trip);
      const handoff = this.#calls.takeHandoff();
      const plan = handoff && (await handOver(this.#setting, state.agent, handoff, this.#calls));
      if (plan) {
        state.handedOver(handoff.target, plan, iteration);
        this.#calls.use(plan);
      }
    }
  }

  /**
   * An answer: it ends a text run; a structured run's answer is accepted, sent back with what did
   * not match (a user message, stored as a durable step; undefined is returned and the loop goes on),
   * or, when no repairs are left, ends the run with `invalid_output`.
   */
  async #answered(step: ModelStep): Promise<LoopOutcome | undefined> {
    if (!this.answer) return this.#checkedAnswer({ text: step.text });
    const verdict = this.answer.accept(step.text, step.output);
    if (verdict.kind === 'accepted') return this.#checkedAnswer({ text: step.text, output: verdict.value });
    if (verdict.kind === 'failed')
      return { ...this.#ended('invalid_output', verdict.message), outputFailure: verdict.failure };
    await this.#sendBack(verdict.message);
    return undefined;
  }

  /** A user message at the run's position (a repair, a guardrail's feedback): the model answers it next. */
  async #sendBack(message: string): Promise<void> {
    await this.#store.appendMessages({
      agent: this.#state.agent,
      conversationId: this.#setting.conversationId,
      seq: this.#state.seq,
      messages: [{ role: 'user', content: message }],
    });
    this.#state.seq += 1;
  }

  /**
   * An accepted answer, through the output guardrails: allowed, replaced (the stored answer too), sent
   * back with a check's feedback (counted as a repair; none left: a trip), or tripped (withdrawn).
   */
  async #checkedAnswer(answer: { text: string; output?: unknown }): Promise<LoopOutcome | undefined> {
    const done = (value: { text: string; output?: unknown }): LoopOutcome => ({
      ...this.#ended('completed'),
      ...(this.answer ? { value: value.output } : {}),
    });
    const checks = this.#guardrails?.checks;
    if (!checks?.hasOutput) return done(answer);
    const answerSeq = this.#state.seq - 1;
    const checked = await checks.output(answer);
    if ('trip' in checked) return this.#tripped(checked.trip, answerSeq, 'assistant');
    if ('retry' in checked) {
      const repairs = this.answer ? this.answer.repairs : this.guardrailRetries;
      if (repairs >= this.#retryLimit)
        return this.#tripped(
          { kind: 'output', check: checked.check, reason: checked.retry },
          answerSeq,
          'assistant',
        );
      if (this.answer) this.answer.repairs += 1;
      else this.guardrailRetries += 1;
      await this.#sendBack(checked.retry);
      return undefined;
    }
    if (checked.replaced) {
      await this.#rewrite(answerSeq, 'assistant', checked.answer.text);
      this.#state.lastText = checked.answer.text;
    }
    return done(checked.answer);
  }

  /** A guardrail tripped: the run ends, and what it tripped on is withdrawn from the stored conversation. */
  async #tripped(trip: GuardrailTrip, seq?: number, role?: 'user' | 'assistant'): Promise<LoopOutcome> {
    // A tool check's call stored what stands for its result itself.
    if (seq !== undefined && role) await this.#rewrite(seq, role, withdrawnText(trip));
    if (role === 'assistant') this.#state.lastText = '';
    const withdrawn = trip.withdrawn ? ' (the streamed text is withdrawn)' : '';
    this.#setting.emit('guardrail_tripped', `Guardrail "${trip.check}" tripped: ${trip.reason}${withdrawn}`, {
      ...trip,
    });
    return { ...this.#ended('guardrail', trip.reason), guardrail: trip };
  }

  /** The prompt as the input checks replaced it, in the stored conversation. */
  async #replacePrompt(prompt: string): Promise<void> {
    this.replacedPrompt = prompt;
    await this.#rewrite(this.#state.seq - 1, 'user', `${this.#guardrails?.prefix ?? ''}${prompt}`);
  }

  async #rewrite(seq: number, role: 'user' | 'assistant', content: string): Promise<void> {
    await this.#store.appendMessages({
      agent: this.#state.agent,
      conversationId: this.#setting.conversationId,
      seq,
      messages: [{ role, content }],
      ...(role === 'user' ? { keepRecalled: true as const } : {}),
    });
  }

  #ended(stopReason: StopReason, stopMessage?: string): LoopOutcome {
    return {
      output: this.#state.lastText,
      stopReason,
      iterations: this.#state.iterations,
      ...(stopMessage ? { stopMessage } : {}),
    };
  }

  /** After a stop: the calls that did not finish get a result saying so, so the conversation stays paired. */
  async #stopped(stop: StopRequest): Promise<LoopOutcome> {
    const verb = STOPPED[stop.reason];
    await this.#calls.answerWaiting(`${verb}: ${stop.message}`);
    await this.#keepUnfinishedAnswer();
    return this.#ended(stop.reason, stop.message);
  }

  /**
   * A text answer the stop cut off is kept as far as it was written (its live text): the stored
   * conversation, the turn's output and the next turn have it. Runs recorded before this did not.
   */
  async #keepUnfinishedAnswer(): Promise<void> {
    const text = this.#steps.unfinishedText(this.#state.seq);
    if (!text || this.answer || !patched(KEEP_STOPPED_ANSWER)) return;
    await this.#store.appendMessages({
      agent: this.#state.agent,
      conversationId: this.#setting.conversationId,
      seq: this.#state.seq,
      messages: [{ role: 'assistant', content: text }],
    });
    this.#state.seq += 1;
    this.#state.lastText = text;
  }

  /** A step the model answered: the run moves on with it, and its reasoning is shown. */
  #took(step: ModelStep): void {
    this.#state.took(step);
    if (step.reasoning) {
      const { emit } = this.#setting;
      emit('reasoning_started', 'The model is reasoning');
      emit('reasoning_completed', 'The model finished reasoning', { reasoning: step.reasoning });
    }
  }
}

/** The patch under which a stopped turn keeps the answer it was writing (see `#keepUnfinishedAnswer`). */
const KEEP_STOPPED_ANSWER = 'keep-stopped-answer';

const STOPPED: Record<StopRequest['reason'], string> = {
  deadline: 'Stopped at the deadline',
  cancelled: 'Cancelled',
  authorization_timeout: 'Stopped',
};
