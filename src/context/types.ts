/**
 * The numbers that travel between the context room (activities) and the workflow: never message
 * texts, so workflow history stays flat however long the conversation grows. No imports: shared by
 * workflow and worker code.
 */

/** How an agent keeps its conversations inside the model's context window (`context` on the agent). */
export interface ContextOptions {
  /**
   * The most input tokens one model step may send. Default: from the model's family (Claude, GPT,
   * Gemini, the local model's context size) minus a reserve for the answer, else 24,000.
   */
  maxInputTokens?: number;
  /** Turns (a user message and what followed it) kept verbatim after a compaction. Default 10. */
  keepRecentTurns?: number;
  /**
   * What happens when a step would pass the budget: `summarize` (default) replaces the oldest turns
   * with a summary written by the model, `truncate` drops them, `false` sends the whole conversation.
   */
  compaction?: 'summarize' | 'truncate' | false;
  /** The instruction the summarizing step gets. Default: keep every fact, name, number and open task. */
  summaryPrompt?: string;
}

/** What one model step sent, as `callModel` counted it. */
export interface ContextReport {
  /** Estimated input tokens of the request that was sent. */
  input_tokens: number;
  /** The budget the request was built for. */
  max_input_tokens: number;
  /** Compactions of this conversation so far. */
  compactions: number;
  /** Old large tool results whose bodies were left out of this request (a one-line note each). */
  dropped_tool_results: number;
}

/** A step that was not sent (over the budget) or that the provider refused as too long. */
export interface ContextOverflow {
  reason: 'over_budget' | 'prompt_too_long';
  /** Our estimate of the request's input tokens. */
  estimated_tokens: number;
  max_input_tokens: number;
  /** What the provider counted, when its error said so. */
  provider_tokens?: number;
  /** The provider's limit, when its error said so. */
  provider_limit?: number;
  /** The provider's own words. */
  detail?: string;
}

export interface CompactContextInput {
  agent: string;
  model: string;
  conversationId: string;
  /** Compact what the step at this position would see. */
  seq: number;
  /** The tools of the step (their schemas count towards the budget). */
  tools: string[];
  /** After a provider's "prompt too long": cut deeper than a routine compaction. */
  force: boolean;
}

/** What a compaction did, in numbers (the summary itself stays in the memory store). */
export interface CompactionResult {
  before_tokens: number;
  after_tokens: number;
  /** Messages newly summarized (or dropped, with `truncate`); 0 when nothing could be cut. */
  messages_summarized: number;
  mode: 'summarize' | 'truncate';
  /** Compactions of this conversation so far, this one included. */
  compactions: number;
  /** Model calls the summary took (0 with `truncate`). */
  model_calls: number;
}

/** `metadata.context` of a result: where the conversation stands against the budget. */
export interface ContextMetadata {
  /** Input tokens of the last step: the provider's count when it gave one, else our estimate. */
  input_tokens: number;
  /** Our estimate of the last step's input tokens. */
  estimated_input_tokens: number;
  max_input_tokens: number;
  /** Compactions of this conversation so far. */
  compactions: number;
  /**
   * Steps of this turn whose prompt cache a compaction broke: the conversation after the system
   * prompt was written to the cache again (the tools and system prompt were still read from it).
   * Absent when none did.
   */
  cache_breaks?: number;
}
