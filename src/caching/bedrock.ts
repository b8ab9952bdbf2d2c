import type { BreakpointMarker } from './breakpoints.ts';
import type { CacheRequest } from './options.ts';

/**
 * Claude and Nova through Amazon Bedrock's Converse API (`@ai-sdk/amazon-bedrock`'s chat models,
 * provider `amazon-bedrock`), the models for which Bedrock offers prompt caching. Claude through
 * Bedrock's Messages API (`bedrock.anthropic.messages`) takes Anthropic's markers instead.
 */
export function speaksBedrockConverse(provider: string, modelId: string): boolean {
  return provider === 'amazon-bedrock' && /anthropic\.claude|amazon\.nova/.test(modelId);
}

/**
 * Bedrock's breakpoint: a `cachePoint` block after a message or the system prompt
 * (`providerOptions.bedrock.cachePoint`), 1-hour when asked for Claude (Nova caches for 5 minutes
 * only). The AI SDK puts no cache point among the tool definitions, so the head is the system prompt.
 */
export function bedrockMarker(cache: CacheRequest, modelId: string): BreakpointMarker {
  const hour = cache.ttl === '1h' && /anthropic\.claude/.test(modelId);
  return {
    options: { bedrock: { cachePoint: { type: 'default', ...(hour ? { ttl: '1h' } : {}) } } },
    onTools: false,
  };
}
