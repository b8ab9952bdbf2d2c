import { ApplicationFailure } from '@temporalio/workflow';
import type { CallModelInput, ModelStep } from '../common/model-step.ts';
import type { CompactContextInput, CompactionResult, ContextOverflow } from '../context/types.ts';
import type { Emit } from './event-log.ts';
import { waitOutModelRateLimits } from '../rate-limits/workflow-wait.ts';

/** The model activities the keeper drives (the run loop's proxy, so compaction is retried like a step). */
export interface ContextActivities {
  callModel(input: CallModelInput): Promise<ModelStep>;
  compactContext(input: CompactContextInput): Promise<CompactionResult>;
}

/**
 * The workflow's side of the context budget (docs/chat.md), around each model step: when
 * `callModel` answers that its request is over the budget, compact once and call again (sending
 * anyway if nothing more could be cut); when the provider answered "prompt too long", compact
 * harder once and call again; if that still does not fit, fail the run naming the budget. The
 * workflow sees only numbers: the view and the summary live in the memory store.
 */
export class ContextKeeper {
  readonly #activities: ContextActivities;
  readonly #emit: Emit;
  /** The run's deadline now, for a wait on a provider's long Retry-After. */
  readonly #deadlineAt: () => number | undefined;

  constructor(activities: ContextActivities, emit: Emit, deadlineAt: () => number | undefined) {
    this.#activities = activities;
    this.#emit = emit;
    this.#deadlineAt = deadlineAt;
  }

  /** A model step asked for now (with `activities`: the attempts a failed opening step left). */
  async ask(input: CallModelInput, activities = this.#activities): Promise<ModelStep> {
    const step = await this.#call(activities, input);
    return step.overflow ? this.#fit(input, step, activities) : step;
  }

  /** The first model step, as the turn's opening step took it: it may say its request did not fit. */
  async taken(input: CallModelInput, step: ModelStep): Promise<ModelStep> {
    return step.overflow ? this.#fit(input, step, this.#activities) : step;
  }

  /**
   * A model step that carries the calls of the step before (`input.carried`): they run with its
   * first attempt only, and what became of them comes back with whichever step answers. A step
   * that ran them but did not ask the model (`notTaken`) is answered as it is.
   */
  async carrying(input: CallModelInput): Promise<ModelStep> {
    const step = await this.#call(this.#activities, input);
    if (step.notTaken || !step.overflow) return step;
    const { carried: _, ...alone } = input;
    const fitted = await this.#fit(alone, step, this.#activities);
    return step.carried ? { ...fitted, carried: step.carried } : fitted;
  }

  /** A step whose request did not fit: compacted and asked again until it fits, or the run fails. */
  async #fit(input: CallModelInput, first: ModelStep, activities: ContextActivities): Promise<ModelStep> {
    let compacted = false;
    let forced = false;
    let sendOverBudget = false;
    for (let step = first; ;) {
      const { overflow } = step;
      if (!overflow) return step;
      if (overflow.reason === 'over_budget') {
        if (compacted) sendOverBudget = true;
        else await this.#compact(input, overflow, false);
      } else {
        if (forced) throw doesNotFit(overflow);
        await this.#compact(input, overflow, true);
        forced = true;
      }
      compacted = true;
      step = await this.#call(activities, sendOverBudget ? { ...input, sendOverBudget } : input);
    }
  }

  /**
   * One `callModel`, waiting out a provider's long Retry-After on a timer (a step that carries fast
   * calls is retried by its activity instead, since they ran with its first attempt).
   */
  #call(activities: ContextActivities, input: CallModelInput): Promise<ModelStep> {
    const wait = { deadlineAt: this.#deadlineAt, emit: this.#emit };
    return waitOutModelRateLimits(wait, () => activities.callModel(input));
  }

  async #compact(input: CallModelInput, overflow: ContextOverflow, force: boolean): Promise<void> {
    const result = await this.#activities.compactContext({
      agent: input.agent,
      model: input.model,
      conversationId: input.conversationId,
      seq: input.seq,
      tools: input.tools,
      force,
    });
    if (result.messages_summarized === 0) return;
    const verb = result.mode === 'summarize' ? 'summarized' : 'dropped';
    this.#emit(
      'context_compacted',
      `Context compacted: ${result.messages_summarized} older messages ${verb}, about ${result.before_tokens} → ${result.after_tokens} input tokens`,
      {
        before_tokens: result.before_tokens,
        after_tokens: result.after_tokens,
        messages_summarized: result.messages_summarized,
        mode: result.mode,
        reason: overflow.reason,
        compactions: result.compactions,
        model_calls: result.model_calls,
      },
    );
  }
}

function doesNotFit(overflow: ContextOverflow): ApplicationFailure {
  const counted = overflow.provider_tokens
    ? `${overflow.provider_tokens} tokens by the provider's count`
    : `about ${overflow.estimated_tokens} tokens`;
  return ApplicationFailure.nonRetryable(
    `The conversation does not fit the model's context window even after compacting it: the request had ` +
      `${counted}, the context budget (context.maxInputTokens) is ${overflow.max_input_tokens} tokens, and the ` +
      `model answered: ${overflow.detail ?? 'prompt too long'}. Lower context.maxInputTokens or ` +
      'context.keepRecentTurns, or send a shorter prompt or smaller tool results.',
    'ContextOverflowError',
  );
}
