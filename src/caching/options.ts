/**
 * Prompt caching settings (`caching` on an agent). Shared by the agent's definition and the model
 * step; no imports.
 */

/** How long a provider keeps a cached prefix: Anthropic offers 5 minutes and 1 hour. */
export type CacheTtl = '5m' | '1h';

/** Explicit prompt caching settings. */
export interface CachingSettings {
  /**
   * The TTL of the cache breakpoints. Default `'auto'`: 1 hour when the run may wait longer than
   * 5 minutes before its next step (the agent has tools that wait for approval or for a user's
   * grant, or the conversation is a chat whose next turn comes when its person writes), else 5
   * minutes (docs/caching.md).
   */
  ttl?: CacheTtl | 'auto';
}

/**
 * `caching` on an agent: `'auto'` (the default) caches where the provider offers it, `false` sends
 * no cache marker or key at all, or {@link CachingSettings}.
 */
export type CachingOption = 'auto' | false | CachingSettings;

/** What one model step asks of the provider's prompt cache (`ModelRequest.cache`). */
export interface CacheRequest {
  /** The TTL of this step's breakpoints. */
  ttl: CacheTtl;
  /** The same for every step of one conversation (OpenAI's `prompt_cache_key`). */
  key: string;
}
