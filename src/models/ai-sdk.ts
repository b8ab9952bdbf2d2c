import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import type { ProviderData, ToolCall, Usage } from '../common/messages.ts';
import type { ModelAdapter, ModelRequest, ModelResponse } from './model-adapter.ts';
import { classifyModelError } from './model-errors.ts';
import { toProviderPrompt } from './ai-sdk-prompt.ts';
import { withPromptCache } from '../caching/provider-cache.ts';
import { FINAL_ANSWER_TOOL } from '../output/final-answer-tool.ts';

/**
 * A language model of any AI SDK provider package (`@ai-sdk/openai`, `@ai-sdk/anthropic`,
 * `@ai-sdk/google`, `@ai-sdk/amazon-bedrock`, `@ai-sdk/openai-compatible` for vLLM and Ollama, ...):
 * the provider specification v2, v3 or v4. Typed loosely so that any of those versions is accepted.
 */
export interface LanguageModel {
  readonly specificationVersion: 'v2' | 'v3' | 'v4';
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: never): PromiseLike<unknown>;
  doStream(options: never): PromiseLike<unknown>;
}

export interface AiSdkAdapterOptions {
  /** Stream the answer (default) or ask for it whole. Streaming keeps long answers alive and heartbeating. */
  stream?: boolean;
  /** Further call settings given to the provider on every step (temperature, maxOutputTokens, providerOptions, ...). */
  callOptions?: Partial<Omit<LanguageModelV4CallOptions, 'prompt' | 'tools' | 'abortSignal'>>;
  /**
   * How a structured run (`output`) asks this model: `'native'` sends the schema as the provider's
   * response format on each step (OpenAI's `response_format`, Anthropic's `output_config.format`
   * or its JSON tool), `'tool'` offers a `final_answer` tool whose parameters are the schema.
   * Default: `'native'` for providers known to take a response format, `'tool'` for others
   * (OpenAI-compatible servers such as vLLM and Ollama differ in what they accept).
   */
  structuredOutput?: 'native' | 'tool';
}

/** Providers whose AI SDK packages send a response format with a schema on every model. */
const NATIVE_OUTPUT_PROVIDERS =
  /^(openai|azure|anthropic|google|vertex|amazon-bedrock|mistral|xai|groq|deepseek|cerebras|fireworks|togetherai)\b/;

export function isLanguageModel(value: unknown): value is LanguageModel {
  const model = value as LanguageModel | null;
  return (
    typeof model === 'object' &&
    model !== null &&
    ['v2', 'v3', 'v4'].includes(model.specificationVersion) &&
    typeof model.doGenerate === 'function' &&
    typeof model.doStream === 'function'
  );
}

/**
 * Wraps an AI SDK provider model as a {@link ModelAdapter}. The provider package owns the wire
 * format; this adapter only maps our conversation to the provider prompt and back. Provider calls
 * are made once (the SDK's own retries live in `ai`, which is not used): Temporal retries them.
 *
 * @example
 * import { anthropic } from '@ai-sdk/anthropic';
 * const agent = new Agent({ llm: anthropic('claude-sonnet-4-5') }); // wrapped for you
 */
export function aiSdkModel(model: LanguageModel, options: AiSdkAdapterOptions = {}): ModelAdapter {
  const name = `${model.provider}:${model.modelId}`;
  const v4 = model as unknown as LanguageModelV4;
  const structuredOutput =
    options.structuredOutput ??
    (NATIVE_OUTPUT_PROVIDERS.test(model.provider) || supportsStructuredOutputs(model) ? 'native' : 'tool');
  return {
    specificationVersion: 'toolkit-agent.model.v1',
    modelId: name,
    structuredOutput,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      const plain: LanguageModelV4CallOptions = {
        ...options.callOptions,
        prompt: toProviderPrompt(request.messages),
        ...(request.output
          ? { responseFormat: { type: 'json' as const, schema: request.output.schema, name: 'output' } }
          : {}),
        ...(request.tools.length
          ? {
              tools: request.tools.map((tool) => ({
                type: 'function' as const,
                name: tool.function.name,
                description: tool.function.description,
                inputSchema: tool.function.parameters as never,
              })),
              toolChoice: { type: 'auto' as const },
            }
          : {}),
        abortSignal: request.signal,
      };
      const call = withPromptCache(plain, model, request.cache);
      try {
        if (options.stream === false) {
          const result = await v4.doGenerate(call);
          return collect(result.content, toUsage(result.usage));
        }
        const { stream } = await v4.doStream(call);
        return await collectStream(stream, request.onTextDelta);
      } catch (error) {
        throw classifyModelError(error, name);
      }
    },
  };
}

/** `@ai-sdk/openai-compatible` models say whether their server takes a JSON Schema response format. */
function supportsStructuredOutputs(model: LanguageModel): boolean {
  return (model as { supportsStructuredOutputs?: unknown }).supportsStructuredOutputs === true;
}

/** The parts of a complete answer, as doGenerate returns them. */
function collect(content: readonly LanguageModelV4Content[], usage: Usage | undefined): ModelResponse {
  const builder = new ResponseBuilder();
  for (const part of content) {
    if (part.type === 'text') builder.text += part.text;
    else if (part.type === 'reasoning')
      builder.reasoning.push({ text: part.text, providerOptions: part.providerMetadata });
    else if (part.type === 'tool-call')
      builder.addCall(part.toolCallId, part.toolName, part.input, part.providerMetadata);
  }
  return builder.build(usage);
}

async function collectStream(
  stream: ReadableStream<LanguageModelV4StreamPart>,
  onTextDelta: ((text: string) => void) | undefined,
): Promise<ModelResponse> {
  const builder = new ResponseBuilder();
  const reasoning = new Map<
    string,
    { text: string; providerOptions?: Record<string, Record<string, unknown>> }
  >();
  let usage: Usage | undefined;
  /** Calls of the final-answer tool: their arguments are a structured answer being written. */
  const answers = new Set<string>();
  for await (const part of stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) {
    switch (part.type) {
      case 'text-delta':
        builder.text += part.delta;
        onTextDelta?.(part.delta);
        break;
      case 'tool-input-start':
        if (part.toolName === FINAL_ANSWER_TOOL) answers.add(part.id);
        break;
      case 'tool-input-delta':
        if (answers.has(part.id)) onTextDelta?.(part.delta);
        break;
      case 'reasoning-start':
        reasoning.set(part.id, { text: '', providerOptions: part.providerMetadata });
        break;
      case 'reasoning-delta': {
        const entry = reasoning.get(part.id) ?? { text: '' };
        entry.text += part.delta;
        if (part.providerMetadata)
          entry.providerOptions = { ...entry.providerOptions, ...part.providerMetadata };
        reasoning.set(part.id, entry);
        break;
      }
      case 'reasoning-end': {
        const entry = reasoning.get(part.id);
        if (entry && part.providerMetadata)
          entry.providerOptions = { ...entry.providerOptions, ...part.providerMetadata };
        break;
      }
      case 'tool-call':
        builder.addCall(part.toolCallId, part.toolName, part.input, part.providerMetadata);
        break;
      case 'finish':
        usage = toUsage(part.usage);
        break;
      case 'error':
        throw part.error;
      default:
        break;
    }
  }
  builder.reasoning.push(...reasoning.values());
  return builder.build(usage);
}

class ResponseBuilder {
  text = '';
  readonly reasoning: Array<{ text: string; providerOptions?: Record<string, Record<string, unknown>> }> = [];
  readonly #calls: ToolCall[] = [];
  readonly #callData: NonNullable<ProviderData['toolCalls']> = {};

  addCall(id: string, name: string, input: string, metadata?: Record<string, Record<string, unknown>>): void {
    this.#calls.push({ id, name, args: parseArgs(input) });
    if (metadata && Object.keys(metadata).length) this.#callData[id] = metadata;
  }

  build(usage: Usage | undefined): ModelResponse {
    const reasoning = this.reasoning.filter((part) => part.text || part.providerOptions);
    const providerData: ProviderData = {};
    if (reasoning.some((part) => part.providerOptions)) providerData.reasoning = reasoning;
    if (Object.keys(this.#callData).length) providerData.toolCalls = this.#callData;
    const text = reasoning
      .map((part) => part.text)
      .filter(Boolean)
      .join('\n\n');
    return {
      text: this.text,
      toolCalls: this.#calls,
      ...(text ? { reasoning: text } : {}),
      ...(usage ? { usage } : {}),
      ...(Object.keys(providerData).length ? { providerData } : {}),
    };
  }
}

/** Tool arguments as the model wrote them; text that is not a JSON object reaches the tool's schema check as is. */
function parseArgs(input: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(input || '{}');
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // fall through
  }
  return { _unparsed_arguments: input };
}

/** Token counts from a v4/v3 usage object (nested) or a v2 one (flat). */
function toUsage(usage: unknown): Usage | undefined {
  if (!usage || typeof usage !== 'object') return undefined;
  const read = (value: unknown): number =>
    typeof value === 'number'
      ? value
      : typeof (value as { total?: unknown })?.total === 'number'
        ? (value as { total: number }).total
        : 0;
  const { inputTokens, outputTokens } = usage as { inputTokens?: unknown; outputTokens?: unknown };
  const input = read(inputTokens);
  const output = read(outputTokens);
  // v4/v3: inputTokens.cacheRead and outputTokens.reasoning; v2: cachedInputTokens and reasoningTokens.
  const flat = usage as { cachedInputTokens?: unknown; reasoningTokens?: unknown };
  const cached = (inputTokens as { cacheRead?: unknown } | undefined)?.cacheRead ?? flat.cachedInputTokens;
  const reasoning = (outputTokens as { reasoning?: unknown } | undefined)?.reasoning ?? flat.reasoningTokens;
  const writes = cacheWrites(usage);
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    ...(typeof cached === 'number' && cached > 0 ? { cached_input_tokens: cached } : {}),
    ...(writes['5m'] > 0 ? { cache_write_5m_tokens: writes['5m'] } : {}),
    ...(writes['1h'] > 0 ? { cache_write_1h_tokens: writes['1h'] } : {}),
    ...(typeof reasoning === 'number' && reasoning > 0 ? { reasoning_tokens: reasoning } : {}),
  };
}

/**
 * Tokens written to the prompt cache, in the provider's short and long TTL classes (`5m` and `1h`:
 * Anthropic's 5-minute and 1-hour writes, Bedrock's the same, OpenAI's 30-minute and 12-hour ones).
 * v4/v3 usage gives the total (`inputTokens.cacheWrite`); the provider's own usage (`raw`) says how
 * much of it was long: Anthropic's `cache_creation.ephemeral_1h_input_tokens`, OpenAI's
 * `input_tokens_details.cache_write_tokens_details.ttl_12h_tokens`, Bedrock's `cacheDetails` entries
 * with `ttl: '1h'`. A write the provider does not split is a short one.
 */
function cacheWrites(usage: object): { '5m': number; '1h': number } {
  const total = (usage as { inputTokens?: { cacheWrite?: unknown } }).inputTokens?.cacheWrite;
  const written = typeof total === 'number' ? total : 0;
  const long = longCacheWrites((usage as { raw?: unknown }).raw);
  return { '5m': Math.max(0, written - long), '1h': Math.min(long, written) };
}

/** The long-TTL part of a provider's cache writes, from its own usage object. */
function longCacheWrites(raw: unknown): number {
  if (!raw || typeof raw !== 'object') return 0;
  const count = (value: unknown) => (typeof value === 'number' ? value : 0);
  const anthropic = raw as { cache_creation?: { ephemeral_1h_input_tokens?: unknown } };
  const openai = raw as {
    input_tokens_details?: { cache_write_tokens_details?: { ttl_12h_tokens?: unknown } | null } | null;
  };
  const bedrock = raw as { cacheDetails?: Array<{ inputTokens?: unknown; ttl?: unknown }> | null };
  return (
    count(anthropic.cache_creation?.ephemeral_1h_input_tokens) +
    count(openai.input_tokens_details?.cache_write_tokens_details?.ttl_12h_tokens) +
    (Array.isArray(bedrock.cacheDetails)
      ? bedrock.cacheDetails.reduce(
          (sum, detail) => sum + (detail.ttl === '1h' ? count(detail.inputTokens) : 0),
          0,
        )
      : 0)
  );
}
