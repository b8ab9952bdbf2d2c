import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import type { CacheRequest } from './options.ts';

/** OpenAI's own models through `@ai-sdk/openai` (the Responses and Chat Completions APIs). */
export function speaksOpenAI(provider: string): boolean {
  return /^openai\./.test(provider);
}

/** GPT-5.6 and later: they take explicit cache breakpoints (`prompt_cache_breakpoint`). */
function takesExplicitBreakpoints(modelId: string): boolean {
  const version = /^gpt-(\d+)(?:\.(\d+))?/.exec(modelId);
  if (!version) return false;
  const major = Number(version[1]);
  return major >= 6 || (major === 5 && Number(version[2] ?? 0) >= 6);
}

/**
 * OpenAI caches prefixes of 1,024 tokens and more by itself; `prompt_cache_key`
 * (`providerOptions.openai.promptCacheKey`) sends the steps of one conversation to the same cache,
 * so they hit it even when many conversations share the agent's instructions. A key the caller
 * set in the agent's call options stays. Models that take explicit breakpoints (GPT-5.6 and later,
 * whose default implicit mode already places one on the latest message) get one more at the end
 * of the system prompt (`providerOptions.openai.promptCacheBreakpoint`), the head every step and
 * turn shares.
 */
export function withOpenAICacheKey(
  call: LanguageModelV4CallOptions,
  modelId: string,
  cache: CacheRequest,
): LanguageModelV4CallOptions {
  const openai = call.providerOptions?.openai;
  const keyed =
    openai?.promptCacheKey !== undefined
      ? call
      : {
          ...call,
          providerOptions: { ...call.providerOptions, openai: { ...openai, promptCacheKey: cache.key } },
        };
  const head = call.prompt.findLastIndex((m) => m.role === 'system');
  if (!takesExplicitBreakpoints(modelId) || head < 0) return keyed;
  const prompt = [...call.prompt];
  const system = prompt[head]!;
  prompt[head] = {
    ...system,
    providerOptions: {
      ...system.providerOptions,
      openai: { ...system.providerOptions?.openai, promptCacheBreakpoint: { mode: 'explicit' } },
    },
  };
  return { ...keyed, prompt };
}
