import { createHash } from 'node:crypto';

/** The `usage` object of a Chat Completions answer, with its cache detail. */
export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

/** What the cache made of one request. */
export interface OpenAICachedRequest {
  /** The request's `prompt_cache_key`, when it sent one. */
  key: string | undefined;
  usage: OpenAIUsage;
}

/** How long OpenAI keeps an in-memory cached prefix when it is not used (5 to 10 minutes; the longer here). */
const RETENTION_MS = 10 * 60_000;
const MINIMUM_TOKENS = 1024;
const INCREMENT = 128;

/**
 * OpenAI's automatic prompt caching as its documentation describes it: a request of 1,024 tokens or
 * more reads the longest prefix (tools, then messages, block by block) an earlier request with the
 * same `prompt_cache_key` sent, in steps of 128 tokens, within the retention time; there is nothing
 * to mark and no write price. Tokens: one per three characters of each block's JSON.
 */
export class OpenAIPromptCache {
  readonly requests: OpenAICachedRequest[] = [];
  readonly #seen = new Map<string, number>();
  #offset = 0;

  advance(ms: number): void {
    this.#offset += ms;
  }

  charge(body: Record<string, unknown>, completionTokens: number): OpenAIUsage {
    const now = Date.now() + this.#offset;
    for (const [hash, expiresAt] of this.#seen) if (expiresAt <= now) this.#seen.delete(hash);
    const key = typeof body.prompt_cache_key === 'string' ? body.prompt_cache_key : undefined;
    const blocks = [...((body.tools as unknown[] | undefined) ?? []), ...(body.messages as unknown[])].map(
      (block) => JSON.stringify(block),
    );
    let hash = createHash('sha256')
      .update(`${String(body.model)}\n${key ?? ''}`)
      .digest('hex');
    let tokens = 0;
    let matched = 0;
    const hashes: string[] = [];
    for (const block of blocks) {
      hash = createHash('sha256').update(hash).update(block).digest('hex');
      tokens += Math.ceil(block.length / 3);
      if (this.#seen.has(hash) && matched === tokens - Math.ceil(block.length / 3)) matched = tokens;
      hashes.push(hash);
    }
    for (const seen of hashes) this.#seen.set(seen, now + RETENTION_MS);
    const cached =
      tokens >= MINIMUM_TOKENS && matched >= MINIMUM_TOKENS ? Math.floor(matched / INCREMENT) * INCREMENT : 0;
    const usage: OpenAIUsage = {
      prompt_tokens: tokens,
      completion_tokens: completionTokens,
      total_tokens: tokens + completionTokens,
      prompt_tokens_details: { cached_tokens: cached },
    };
    this.requests.push({ key, usage });
    return usage;
  }
}
