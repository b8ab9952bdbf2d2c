import type { BreakpointMarker } from './breakpoints.ts';
import type { CacheRequest } from './options.ts';

/**
 * Claude through an AI SDK provider that speaks Anthropic's Messages API and reads
 * `providerOptions.anthropic.cacheControl`: `@ai-sdk/anthropic` and the Anthropic providers of
 * Vertex and Bedrock (their provider names contain `anthropic`).
 */
export function speaksAnthropicMessages(provider: string): boolean {
  return /anthropic/.test(provider);
}

/** Anthropic's breakpoint: `cache_control` on a message, a part or a tool, 1-hour when asked. */
export function anthropicMarker(cache: CacheRequest): BreakpointMarker {
  return {
    options: {
      anthropic: { cacheControl: { type: 'ephemeral', ...(cache.ttl === '1h' ? { ttl: '1h' } : {}) } },
    },
    onTools: true,
  };
}
