import type { Message, ToolSchema, Usage } from '../common/messages.ts';
import { ContextOverflowError } from '../errors.ts';
import type { MemoryStore, WriteAttempt } from '../memory/types.ts';
import type { ModelAdapter } from '../models/model-adapter.ts';
import { calibrationRatio, requestUnits } from './estimate.ts';
import { contextSettings, type ContextSettings } from './options.ts';
import { loadContextState, type ContextState } from './state.ts';
import { writeCalibration } from './store.ts';
import type { ContextOptions, ContextOverflow, ContextReport } from './types.ts';
import { buildView, type ContextView } from './view.ts';

/** A calibration is rewritten when the provider's count moves it by more than this share. */
const RECALIBRATE_AT = 0.02;

/**
 * The context of one model step, in `callModel`: the view the model is sent (built from the memory
 * store), whether it is over the budget, and what the provider's answer teaches about the estimate.
 */
export class StepContext {
  readonly settings: ContextSettings;
  readonly #store: MemoryStore;
  readonly #conversationId: string;
  readonly #state: ContextState;
  readonly #view: ContextView;
  readonly #tools: readonly ToolSchema[];
  /** Guards the calibration write against a late attempt of this or an earlier step. */
  readonly #step: { seq: number; attempt: WriteAttempt } | undefined;

  private constructor(
    settings: ContextSettings,
    store: MemoryStore,
    conversationId: string,
    state: ContextState,
    tools: readonly ToolSchema[],
    step?: { seq: number; attempt: WriteAttempt },
  ) {
    this.#step = step;
    this.settings = settings;
    this.#store = store;
    this.#conversationId = conversationId;
    this.#state = state;
    this.#tools = tools;
    const budget = settings.compaction === false ? Number.POSITIVE_INFINITY : state.viewBudget;
    this.#view = buildView({ ...state, tools, budget });
  }

  static async load(options: {
    context: ContextOptions | undefined;
    store: MemoryStore;
    model: ModelAdapter;
    conversationId: string;
    seq: number;
    tools: readonly ToolSchema[];
    /** The model step's activity attempt: its calibration write never replaces a later one's. */
    attempt?: WriteAttempt;
  }): Promise<StepContext> {
    const settings = contextSettings(options.context, options.model);
    const state = await loadContextState({ ...options, settings });
    const step = options.attempt ? { seq: options.seq, attempt: options.attempt } : undefined;
    return new StepContext(settings, options.store, options.conversationId, state, options.tools, step);
  }

  /** The messages the model is sent. */
  get messages(): Message[] {
    return this.#view.messages;
  }

  /** Set when the view is over the budget and the agent compacts: the step is not sent. */
  overBudget(): ContextOverflow | undefined {
    if (this.settings.compaction === false || this.#view.tokens <= this.#state.viewBudget) return undefined;
    return {
      reason: 'over_budget',
      estimated_tokens: this.#view.tokens,
      max_input_tokens: this.#state.limit,
    };
  }

  report(): ContextReport {
    return {
      input_tokens: this.#view.tokens,
      max_input_tokens: this.#state.limit,
      compactions: this.#state.summary?.compactions ?? 0,
      dropped_tool_results: this.#view.dropped,
    };
  }

  /** After an answer: the provider's own count calibrates the next estimate. */
  async settle(usage: Usage | undefined): Promise<void> {
    if (this.#state.tokenizer || !usage?.input_tokens) return;
    const ratio = calibrationRatio(usage.input_tokens, requestUnits(this.#view.messages, this.#tools));
    const previous = this.#state.calibration;
    if (previous && Math.abs(ratio - previous.ratio) <= previous.ratio * RECALIBRATE_AT) return;
    await writeCalibration(this.#store, this.#conversationId, { ...previous, ratio }, this.#step);
  }

  /**
   * A provider's "prompt too long" as an overflow the workflow answers with a forced compaction
   * (recalibrating from the provider's count and limit when it gave them); undefined for any other
   * error, or when the agent does not compact.
   */
  async overflowFrom(error: unknown): Promise<ContextOverflow | undefined> {
    if (!(error instanceof ContextOverflowError) || this.settings.compaction === false) return undefined;
    const previous = this.#state.calibration;
    const ratio =
      error.tokens && !this.#state.tokenizer
        ? calibrationRatio(error.tokens, requestUnits(this.#view.messages, this.#tools))
        : (previous?.ratio ?? this.#state.ratio);
    const providerLimit = error.limit ?? previous?.providerLimit;
    await writeCalibration(
      this.#store,
      this.#conversationId,
      { ratio, ...(providerLimit ? { providerLimit } : {}) },
      this.#step,
    );
    return {
      reason: 'prompt_too_long',
      estimated_tokens: this.#view.tokens,
      max_input_tokens: this.#state.limit,
      ...(error.tokens ? { provider_tokens: error.tokens } : {}),
      ...(error.limit ? { provider_limit: error.limit } : {}),
      detail: error.message.slice(0, 500),
    };
  }
}
