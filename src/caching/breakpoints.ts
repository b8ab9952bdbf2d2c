import type { LanguageModelV4CallOptions, LanguageModelV4Message } from '@ai-sdk/provider';
import { CHARS_PER_TOKEN } from '../context/estimate.ts';

/** Claude's limit of cache breakpoints per request (Anthropic's `cache_control`, Bedrock's `cachePoint`). */
const MAX_BREAKPOINTS = 4;

/**
 * The smallest prefix Claude caches, in tokens, by model (Anthropic's prompt-caching documentation;
 * Bedrock keeps the same minimums): 4,096 for Claude Opus 4.5 and Haiku 4.5, 2,048 for the Haiku 3
 * family, 1,024 for the others. A breakpoint on a shorter prefix writes nothing and only spends one
 * of the four.
 */
function minimumCacheableTokens(modelId: string): number {
  if (/opus-4-5|haiku-4-5/.test(modelId)) return 4096;
  if (/haiku/.test(modelId)) return 2048;
  return 1024;
}

type Prompt = LanguageModelV4CallOptions['prompt'];
type Tools = NonNullable<LanguageModelV4CallOptions['tools']>;
type ProviderOptions = NonNullable<LanguageModelV4Message['providerOptions']>;

/** How a provider's AI SDK client takes a cache breakpoint. */
export interface BreakpointMarker {
  /** The `providerOptions` that make a message (or a tool) a breakpoint, under the provider's own key. */
  options: ProviderOptions;
  /** Whether a tool definition can carry one (needed for the head when there is no system prompt). */
  onTools: boolean;
}

/**
 * Marks a request's cache breakpoints with `marker`, three at most:
 * - the head: after the tool definitions and the system prompt (on the last system message, or the
 *   last tool when there is no system prompt and tools take a marker), which every step and turn of
 *   the agent shares;
 * - the previous step's tail: the message before the latest assistant message, where the step
 *   before wrote, so this step reads it even when its new messages pass the service's lookback;
 * - the tail: the last message, which the next step reads.
 * A breakpoint whose prefix is below the model's minimum cacheable length is left out. The
 * estimate is {@link CHARS_PER_TOKEN} characters per token, fewer tokens than Claude's tokenizer
 * counts, so a short prefix is never marked.
 */
export function markBreakpoints(
  call: LanguageModelV4CallOptions,
  modelId: string,
  marker: BreakpointMarker,
): LanguageModelV4CallOptions {
  const minimum = minimumCacheableTokens(modelId);
  const prompt: Prompt = [...call.prompt];
  const tools: Tools | undefined = call.tools && [...call.tools];
  const ends = prefixEnds(prompt, tools);
  const places = new Set<number>();
  const lastSystem = prompt.findLastIndex((m) => m.role === 'system');
  const previousAnswer = prompt.findLastIndex((m) => m.role === 'assistant');
  for (const index of [lastSystem, previousAnswer - 1, prompt.length - 1])
    if (index >= 0 && ends.messages[index]! >= minimum) places.add(index);
  const toolHead = marker.onTools && lastSystem < 0 && tools?.length && ends.tools >= minimum;
  for (const index of [...places].slice(0, MAX_BREAKPOINTS - (toolHead ? 1 : 0)))
    prompt[index] = {
      ...prompt[index]!,
      providerOptions: merge(prompt[index]!.providerOptions, marker.options),
    };
  const last = tools?.at(-1);
  if (toolHead && tools && last?.type === 'function')
    tools[tools.length - 1] = { ...last, providerOptions: merge(last.providerOptions, marker.options) };
  return { ...call, prompt, ...(tools ? { tools } : {}) };
}

/** Estimated tokens from the start of the request (tools, then messages) to the end of each message. */
function prefixEnds(prompt: Prompt, tools: Tools | undefined): { tools: number; messages: number[] } {
  let chars = tools ? JSON.stringify(tools).length : 0;
  const toolTokens = Math.floor(chars / CHARS_PER_TOKEN);
  // System messages travel before the others in Claude's request: count them first.
  const systemChars = prompt.filter((m) => m.role === 'system').reduce((sum, m) => sum + size(m), 0);
  const messages = prompt.map((message) => {
    if (message.role === 'system') return Math.floor((chars + systemChars) / CHARS_PER_TOKEN);
    chars += size(message);
    return Math.floor((chars + systemChars) / CHARS_PER_TOKEN);
  });
  return { tools: toolTokens, messages };
}

function size(message: LanguageModelV4Message): number {
  return typeof message.content === 'string'
    ? message.content.length
    : JSON.stringify(message.content).length;
}

/** The message's or tool's own provider options with the marker's added under each provider key. */
function merge(options: ProviderOptions | undefined, marker: ProviderOptions): ProviderOptions {
  const merged: ProviderOptions = { ...options };
  for (const [provider, settings] of Object.entries(marker))
    merged[provider] = { ...options?.[provider], ...settings };
  return merged;
}
