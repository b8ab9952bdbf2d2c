import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import type { CacheRequest } from './options.ts';

/** OpenAI's own models through `@ai-sdk/openai` (the Responses and Chat Completions APIs). */
export function speaksOpenAI(provider: string): boolean {
  return /^openai\./.test(provider);
}

/**
 * OpenAI caches prefixes of 1,024 tokens and more by itself; `prompt_cache_key`
 * (`providerOptions.openai.promptCacheKey`) sends the steps of one conversation to the same cache,
 * so they hit it even when many conversations share the agent's instructions. A key the caller
 * set in the agent's call options stays.
 */
export function withOpenAICacheKey(
  call: LanguageModelV4CallOptions,
  cache: CacheRequest,
): LanguageModelV4CallOptions {
  const openai = call.providerOptions?.openai;
  if (openai?.promptCacheKey !== undefined) return call;
  return {
    ...call,
    providerOptions: { ...call.providerOptions, openai: { ...openai, promptCacheKey: cache.key } },
  };
}
