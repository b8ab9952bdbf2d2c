import { createHash } from 'node:crypto';
import type { Message } from '../common/messages.ts';
import type { CacheRequest, CachingOption } from './options.ts';
import { cacheTtl } from './ttl.ts';

/**
 * What one model step asks of the prompt cache, or undefined when the agent's `caching` is off.
 * The key is a digest of the agent and conversation: stable across the conversation's steps and
 * turns, and it tells the provider nothing of either.
 */
export function stepCache(
  caching: CachingOption,
  step: { agent: string; conversationId: string; messages: readonly Message[]; waitsForPeople: boolean },
): CacheRequest | undefined {
  if (caching === false) return undefined;
  const key = createHash('sha256').update(`${step.agent}\n${step.conversationId}`).digest('hex').slice(0, 32);
  return { key, ttl: cacheTtl(caching, step) };
}
