import { ApplicationFailure } from '@temporalio/workflow';
import type { CallModelInput, ModelStep } from '../common/run.ts';
import type { CompactContextInput, CompactionResult, ContextOverflow } from '../context/types.ts';
import type { Emit } from './event-log.ts';

/** The model activities the keeper drives (the run loop's proxy, so compaction is retried like a step). */
export interface ContextActivities {
  callModel(input: CallModelInput): Promise<ModelStep>;
  compactContext(input: CompactContextInput): Promise<CompactionResult>;
}

/**
 * The workflow's side of the context budget (DESIGN.md section 9), around each model step: when
 * `callModel` answers that its request is over the budget, compact once and call again (sending
 * anyway if nothing more could be cut); when the provider answered "prompt too long", compact
 * harder once and call again; if that still does not fit, fail the run naming the budget. The
 * workflow sees only numbers: the view and the summary live in the memory store.
 */
export class ContextKeeper {
  readonly #activities: ContextActivities;
  readonly #emit: Emit;

  constructor(activities: ContextActivities, emit: Emit) {
    this.#activities = activities;
    this.#emit = emit;
  }

  /**
   * One model step, compacting as it must. Calls it carries (`input.carried`) run with its first
   * attempt only: what became of them comes back with whichever step answers. A turn's first step
   * may come from its opening step: `taken`, its answer (it may say the request did not fit), or
   * `activities` with the attempts its failed first attempt left.
   */
  async callModel(
    first: CallModelInput,
    opening: { taken?: ModelStep | undefined; activities?: ContextActivities | undefined } = {},
  ): Promise<ModelStep> {
    let compacted = false;
    let forced = false;
    let sendOverBudget = false;
    let input = first;
    let carried: ModelStep['carried'];
    let taken = opening.taken;
    const activities = opening.activities ?? this.#activities;
    for (;;) {
      const step =
        taken ?? (await activities.callModel(sendOverBudget ? { ...input, sendOverBudget } : input));
      taken = undefined;
      if (input.carried) {
        if (step.notTaken) return step;
        carried = step.carried;
        const { carried: _, ...rest } = input;
        input = rest;
      }
      const { overflow } = step;
      if (!overflow) return carried ? { ...step, carried } : step;
      if (overflow.reason === 'over_budget') {
        if (compacted) sendOverBudget = true;
        else await this.#compact(input, overflow, false);
        compacted = true;
        continue;
      }
      if (forced) throw doesNotFit(overflow);
      await this.#compact(input, overflow, true);
      forced = true;
      compacted = true;
    }
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
