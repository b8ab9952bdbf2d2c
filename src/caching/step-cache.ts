import { createHash } from 'node:crypto';
import type { CacheRequest, CachingOption } from './options.ts';
import { cacheTtl, type WaitOutlook } from './ttl.ts';

/**
 * What one model step asks of the prompt cache, or undefined when the agent's `caching` is off.
 * The key is a digest of the agent and conversation: stable across the conversation's steps and
 * turns, and it tells the provider nothing of either.
 */
export function stepCache(
  caching: CachingOption,
  step: { agent: string; conversationId: string } & WaitOutlook,
): CacheRequest | undefined {
  if (caching === false) return undefined;
  const key = createHash('sha256').update(`${step.agent}\n${step.conversationId}`).digest('hex').slice(0, 32);
  return { key, ttl: cacheTtl(caching, step) };
}
