import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { anthropicMarker, speaksAnthropicMessages } from './anthropic.ts';
import { bedrockMarker, speaksBedrockConverse } from './bedrock.ts';
import { markBreakpoints } from './breakpoints.ts';
import type { CacheRequest } from './options.ts';
import { speaksOpenAI, withOpenAICacheKey } from './openai.ts';

/**
 * A provider call with what the provider's prompt cache needs: Claude's breakpoints (Anthropic's
 * `cache_control`, Bedrock Converse's `cachePoint`), OpenAI's cache key. Other providers cache by
 * themselves (Gemini's implicit caching) or not at all: their call is unchanged, and so is every
 * call without a `cache` (caching off).
 */
export function withPromptCache(
  call: LanguageModelV4CallOptions,
  model: { provider: string; modelId: string },
  cache: CacheRequest | undefined,
): LanguageModelV4CallOptions {
  if (!cache) return call;
  if (speaksAnthropicMessages(model.provider))
    return markBreakpoints(call, model.modelId, anthropicMarker(cache));
  if (speaksBedrockConverse(model.provider, model.modelId))
    return markBreakpoints(call, model.modelId, bedrockMarker(cache, model.modelId));
  if (speaksOpenAI(model.provider)) return withOpenAICacheKey(call, model.modelId, cache);
  return call;
}
