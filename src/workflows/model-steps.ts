import { ApplicationFailure, sleep } from '@temporalio/workflow';
import type { TextDeltaSignal } from '../common/control.ts';
import type { Emit } from './event-log.ts';
import type { CallModelInput, CarriedCalls, CarriedOutcome, ModelStep, ResolvedRun } from '../common/run.ts';
import type { OpenedRun } from '../common/opening.ts';
import { showStep } from '../visibility/current-details.ts';
import type { ContextActivities, ContextKeeper } from './context-keeper.ts';
import { FIRST_RETRY_MS, modelActivities } from './quick-activities.ts';
import type { ToolCalls } from './tool-calls.ts';

/** What the model steps need of the loop they serve. */
export interface ModelStepHost {
  readonly plan: ResolvedRun;
  readonly context: ContextKeeper;
  readonly emit: Emit;
  /** Position of the next message: the step's. */
  readonly seq: number;
  /** A structured turn: live text also brings the answer parsed so far. */
  readonly structured: boolean;
  /** The input of a model step at the loop's position. */
  stepInput(carried?: CarriedCalls): CallModelInput;
}

/**
 * The model step of each iteration of a turn's loop: the one the turn's opening step took, one that
 * carries the fast calls of the step before (settled first), or one asked for now. Shows the step in
 * flight: `step_started` once per iteration, its live text, and what became of its carried calls
 * before that text.
 */
export class ModelSteps {
  readonly #host: ModelStepHost;
  readonly #calls: ToolCalls;
  readonly #tags: Record<string, unknown>;
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

  constructor(host: ModelStepHost, calls: ToolCalls, tags: Record<string, unknown>) {
    this.#host = host;
    this.#calls = calls;
    this.#tags = tags;
  }

  /**
   * What the turn's opening step did before the loop runs: the first model step it took (absent:
   * the loop takes it), and whether its live text already said that step started.
   */
  opened(opened: Pick<OpenedRun, 'step' | 'failure'>, started: boolean): void {
    this.#opening = opened;
    if (started) this.#started = 1;
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
    showLiveText(this.#host.emit, delta, this.#host.structured);
  }

  /** The iteration's model step, once it answered (the caller moves the loop on with it). */
  async take(iteration: number): Promise<ModelStep> {
    const opening = this.#opening;
    this.#opening = undefined;
    const carried = this.#carried;
    this.#carried = undefined;
    if (carried) {
      this.#carrying = { iteration, calls: carried };
      let step: ModelStep;
      try {
        step = await this.#ask(carried);
      } finally {
        this.#carrying = undefined;
        this.#modelSeq = undefined;
      }
      const retries = this.#calls.settleCarried(carried, step.carried ?? []);
      if (retries) await retries;
      if (!step.notTaken) {
        this.#start(iteration);
        return step;
      }
    }
    this.#start(iteration);
    try {
      return await this.#ask(undefined, {
        taken: opening?.step,
        activities: opening?.failure ? (await this.#retake(opening.failure)).activities : undefined,
      });
    } finally {
      this.#modelSeq = undefined;
    }
  }

  #start(iteration: number): void {
    if (this.#started === iteration) return;
    this.#started = iteration;
    showStepStarted(this.#host.emit, iteration, this.#host.plan.maxIterations, this.#tags);
  }

  /** Asks for the model step at the loop's position; its live text is taken until the caller clears `#modelSeq`. */
  #ask(carried?: CarriedCalls, opening?: Parameters<ContextKeeper['callModel']>[1]): Promise<ModelStep> {
    this.#modelSeq = this.#host.seq;
    return this.#host.context.callModel(this.#host.stepInput(carried), opening);
  }

  /**
   * The first model step failed in the turn's opening step: the run fails with that failure when it
   * is not retryable or the agent allows one attempt; else the step is taken with the attempts left,
   * after the wait a retry would have (Retry-After, else the first retry interval). Returns those
   * activities wrapped: an activity proxy is itself awaitable (its `then` would be an activity).
   */
  async #retake(failure: NonNullable<OpenedRun['failure']>): Promise<{ activities: ContextActivities }> {
    const { timeouts } = this.#host.plan;
    const attempts = timeouts.modelMaxAttempts;
    if (!failure.retryable || attempts === 1)
      throw ApplicationFailure.create({ message: failure.message, type: failure.type, nonRetryable: true });
    await sleep(failure.retryAfterMs ?? FIRST_RETRY_MS);
    return {
      activities: modelActivities({ ...timeouts, modelMaxAttempts: attempts === 0 ? 0 : attempts - 1 }),
    };
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
