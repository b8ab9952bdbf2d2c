import type { Message, ProviderData, ToolCall, ToolSchema, Usage } from '../common/messages.ts';
import type { CacheRequest } from '../caching/options.ts';
import type { JsonSchemaObject } from '../output/types.ts';

/** What one model step is asked: the conversation so far and the tools it may call. */
export interface ModelRequest {
  messages: Message[];
  tools: ToolSchema[];
  /** Aborted when the activity is cancelled or times out. */
  signal?: AbortSignal;
  /** Called with each piece of answer text as the model writes it (adapters that stream). */
  onTextDelta?: (text: string) => void;
  /**
   * The run wants a structured answer: given only to adapters with `structuredOutput: 'native'`,
   * which answer (when they answer without tool calls) with JSON text matching `schema`.
   */
  output?: { schema: JsonSchemaObject };
  /**
   * Use the provider's prompt cache (absent when the agent's `caching` is `false`): adapters of
   * providers with explicit breakpoints or cache keys set them (src/caching).
   */
  cache?: CacheRequest;
}

/** One model step: text, tool calls (each with an id), optional reasoning and token usage. */
export interface ModelResponse {
  text: string;
  toolCalls: ToolCall[];
  reasoning?: string;
  usage?: Usage;
  /** Stored with the assistant message and handed back to the adapter on the next step. */
  providerData?: ProviderData;
}

/**
 * The seam between the agent loop and a language model, versioned like the AI SDK's
 * `LanguageModelV3`: adapters declare the `specificationVersion` they implement. Adapters live on the
 * worker (they hold API keys); runs refer to them by agent name.
 */
export interface ModelAdapter {
  readonly specificationVersion: 'toolkit-agent.model.v1';
  /** A name for logs and metadata, e.g. `openai:gpt-5` or `scripted`. */
  readonly modelId: string;
  generate(request: ModelRequest): Promise<ModelResponse>;
  /**
   * `'native'`: the adapter honours `request.output` itself (a provider's response format, a
   * grammar). Otherwise (`'tool'` or absent) a structured run offers the model a `final_answer`
   * tool whose parameters are the schema.
   */
  readonly structuredOutput?: 'native' | 'tool';
  /**
   * The most input tokens one request may carry (the context window minus room for the answer), when
   * the adapter knows it; agents use it as their default `context.maxInputTokens`.
   */
  readonly maxInputTokens?: number;
  /** The input tokens of a request by the model's own tokenizer, for adapters that have it. */
  countTokens?(request: Pick<ModelRequest, 'messages' | 'tools'>): Promise<number>;
}

export function isModelAdapter(value: unknown): value is ModelAdapter {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as ModelAdapter).specificationVersion === 'toolkit-agent.model.v1' &&
    typeof (value as ModelAdapter).generate === 'function'
  );
}
