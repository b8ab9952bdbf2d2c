import { ApplicationFailure, sleep } from '@temporalio/workflow';
import type { TextDeltaSignal } from '../common/control.ts';
import type { Emit } from './event-log.ts';
import type { CallModelInput, CarriedCalls, CarriedOutcome, ModelStep } from '../common/model-step.ts';
import { modelStepInput } from '../common/step-input.ts';
import type { JsonSchemaObject } from '../output/types.ts';
import { runLineSoFar } from '../usage/run-line.ts';
import type { RunView, TurnSetting } from './run-state.ts';
import type { OpenedRun } from '../common/opening.ts';
import { showStep } from '../visibility/current-details.ts';
import type { ContextKeeper } from './context-keeper.ts';
import { FIRST_RETRY_MS, modelActivities } from './quick-activities.ts';
import { StepText } from './step-text.ts';
import type { ToolCalls } from './tool-calls.ts';

/** What the model steps need of the turn they serve. */
export interface ModelStepsOptions {
  readonly setting: TurnSetting;
  /** The run as it stands: the step's position, agent, plan and tools. */
  readonly run: RunView;
  readonly calls: ToolCalls;
  readonly context: ContextKeeper;
  /** Added to the payload of every event (`step_started` says it in the run's details too). */
  readonly tags: Record<string, unknown>;
  /** A structured turn's schema: the model answers it, and live text brings the answer so far. */
  readonly output?: JsonSchemaObject | undefined;
  /** Store the answering agent with each assistant message (a conversation that is handed off). */
  readonly labelAgent: boolean;
  /**
   * What the turn's opening step did before the loop runs: the first model step it took (absent:
   * the loop takes it), and whether its live text already said that step started.
   */
  readonly opened?:
    (Pick<OpenedRun, 'step' | 'failure'> & { started: boolean; liveText?: StepText | undefined }) | undefined;
}

/**
 * The model step of each iteration of a turn's loop: the one the turn's opening step took, one that
 * carries the fast calls of the step before (settled first), or one asked for now. Shows the step in
 * flight: `step_started` once per iteration, its live text, and what became of its carried calls
 * before that text.
 */
export class ModelSteps {
  readonly #setting: TurnSetting;
  readonly #run: RunView;
  readonly #calls: ToolCalls;
  readonly #context: ContextKeeper;
  readonly #options: ModelStepsOptions;
  /** Position of the model step in flight: live text of any other step is dropped. */
  #modelSeq: number | undefined;
  /** Fast calls of the last step, which the next model step runs before it asks the model. */
  #carried: CarriedCalls | undefined;
  /** The carried calls of the step in flight, with its iteration. */
  #carrying: { iteration: number; calls: CarriedCalls } | undefined;
  /** The last iteration whose `step_started` was emitted. */
  #started = 0;
  /** What the turn's opening step made of the first model step (src/workflows/opening-step.ts). */
  #opening: Pick<OpenedRun, 'step' | 'failure'> | undefined;
  /** The live text of the step in flight (the opening step's, from where it left off). */
  readonly #live: StepText;

  constructor(options: ModelStepsOptions) {
    this.#options = options;
    this.#setting = options.setting;
    this.#run = options.run;
    this.#calls = options.calls;
    this.#context = options.context;
    this.#opening = options.opened;
    if (options.opened?.started) this.#started = 1;
    this.#live = options.opened?.liveText ?? new StepText();
  }

  /** The fast calls of this step ride with the next model step. */
  carry(calls: CarriedCalls): void {
    this.#carried = calls;
  }

  /** Live text of the step in flight, as a `text_delta` event (dropped for any other step). */
  acceptTextDelta(delta: TextDeltaSignal): void {
    if (delta.seq !== this.#modelSeq || typeof delta.text !== 'string') return;
    const carrying = this.#carrying;
    // The step's calls are done and it is asking the model: their events, then the step's.
    if (
      delta.settled &&
      carrying &&
      this.#calls.showCarried(carrying.calls, delta.settled as CarriedOutcome[])
    )
      this.#start(carrying.iteration);
    this.#live.add(delta);
    showLiveText(this.#setting.emit, delta, this.#options.output !== undefined);
  }

  /** What the model step at `seq` wrote live before it was stopped ('' when nothing). */
  unfinishedText(seq: number): string {
    return this.#live.at(seq);
  }

  /**
   * The iteration's model step, once it answered (the caller moves the loop on with it): the one
   * the turn's opening step took, one that carries the fast calls of the step before, or one asked
   * for now.
   */
  async take(iteration: number): Promise<ModelStep> {
    const opening = this.#opening;
    this.#opening = undefined;
    const carried = this.#carried;
    this.#carried = undefined;
    if (carried) {
      const step = await this.#takeCarrying(iteration, carried);
      if (step) return step;
    }
    this.#start(iteration);
    try {
      const step = await (opening?.step || opening?.failure ? this.#takeOpened(opening) : this.#ask());
      this.#recordStreamed(step);
      return step;
    } finally {
      this.#modelSeq = undefined;
    }
  }

  /** A step asked for now, at the run's position. */
  #ask(): Promise<ModelStep> {
    return this.#context.ask(this.#asking());
  }

  /**
   * The first step, as the turn's opening step left it: taken (its answer), or failed. A failed
   * step fails the run when it is not retryable or the agent allows one attempt; else it is asked
   * for with the attempts left, after the wait a retry would have (Retry-After, else the first
   * retry interval).
   */
  async #takeOpened(opening: Pick<OpenedRun, 'step' | 'failure'>): Promise<ModelStep> {
    if (opening.step) return this.#context.taken(this.#asking(), opening.step);
    const failure = opening.failure!;
    const { timeouts } = this.#run.plan;
    const attempts = timeouts.modelMaxAttempts;
    if (!failure.retryable || attempts === 1)
      throw ApplicationFailure.create({ message: failure.message, type: failure.type, nonRetryable: true });
    await sleep(failure.retryAfterMs ?? FIRST_RETRY_MS);
    const left = modelActivities({ ...timeouts, modelMaxAttempts: attempts === 0 ? 0 : attempts - 1 });
    return this.#context.ask(this.#asking(), left);
  }

  /**
   * A step carrying the fast calls of the step before: they are settled once it answers (those it
   * left to the workflow run again). Undefined when it ran them but did not ask the model: the
   * iteration's step is then asked for as a step of its own.
   */
  async #takeCarrying(iteration: number, carried: CarriedCalls): Promise<ModelStep | undefined> {
    this.#carrying = { iteration, calls: carried };
    let step: ModelStep;
    try {
      step = await this.#context.carrying(this.#asking(carried));
    } finally {
      this.#carrying = undefined;
      this.#modelSeq = undefined;
    }
    const retries = this.#calls.settleCarried(carried, step.carried ?? []);
    if (retries) await retries;
    if (step.notTaken) return undefined;
    this.#start(iteration);
    this.#recordStreamed(step);
    return step;
  }

  /** The text of a step that went to readers on the live channel only: the run records it now, once. */
  #recordStreamed(step: ModelStep): void {
    const streamed = step.streamed;
    const text = streamed?.text ?? step.text;
    if (streamed && text)
      this.#setting.emit('text_delta', 'The model is writing', { text, attempt: streamed.attempt });
  }

  #start(iteration: number): void {
    if (this.#started === iteration) return;
    this.#started = iteration;
    showStepStarted(this.#setting.emit, iteration, this.#run.plan.maxIterations, this.#options.tags);
  }

  /**
   * The input of the step asked for at the run's position (carrying the fast calls of the step
   * before): its live text is shown from now until it answers (the caller clears `#modelSeq`).
   */
  #asking(carried?: CarriedCalls): CallModelInput {
    const run = this.#run;
    this.#modelSeq = run.seq;
    const { input, conversationId } = this.#setting;
    return modelStepInput({
      agent: run.agent,
      plan: run.plan,
      conversationId,
      seq: run.seq,
      tools: [...run.tools],
      frontendTools: input.frontendTools,
      ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
      labelAgent:
        this.#options.labelAgent || run.plan.delegation?.handoffs !== undefined || run.handoffs.length > 0,
      ...(this.#options.output ? { output: this.#options.output } : {}),
      ...(run.runLine ? { runLine: runLineSoFar(run.runLine, run.runLineCounts) } : {}),
      ...(carried ? { carried } : {}),
    });
  }
}

/** `step_started` of an iteration, and the run's current details (the Temporal UI) say it. */
export function showStepStarted(
  emit: Emit,
  iteration: number,
  maxIterations: number,
  tags: Record<string, unknown>,
): void {
  emit('step_started', `Step ${iteration} of at most ${maxIterations}`, { iteration });
  showStep(iteration, maxIterations, tags);
}

/** A batch of live text as `text_delta`, and in a structured turn the answer so far as `partial_output`. */
export function showLiveText(emit: Emit, delta: TextDeltaSignal, structured: boolean): void {
  if (!delta.text) return;
  emit('text_delta', 'The model is writing', { text: delta.text, attempt: delta.attempt });
  if (structured && delta.partial !== undefined)
    emit('partial_output', 'The answer so far', { output: delta.partial, attempt: delta.attempt });
}
