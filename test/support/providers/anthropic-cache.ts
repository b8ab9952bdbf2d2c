import { createHash } from 'node:crypto';

/** Dollars per million tokens of each class Anthropic bills. */
export interface AnthropicPrices {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
}

/** Claude Sonnet 4.5's list prices: a read is 0.1× input, a 5-minute write 1.25×, a 1-hour write 2×. */
export const SONNET_PRICES: AnthropicPrices = {
  input: 3,
  output: 15,
  cacheRead: 0.3,
  cacheWrite5m: 3.75,
  cacheWrite1h: 6,
};

/** The `usage` object of a Messages API answer, cache fields included. */
export interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  output_tokens: number;
}

/** What the cache made of one request: its blocks (serialized without markers) and the breakpoints. */
export interface CachedRequest {
  /** Each block of the prefix order (tools, system, messages) as JSON without `cache_control`. */
  blocks: string[];
  /** Indexes into `blocks` that carried `cache_control`, with their TTL. */
  breakpoints: Array<{ index: number; ttl: '5m' | '1h' }>;
  usage: AnthropicUsage;
  /** Dollars billed for the request. */
  cost: number;
}

const TTL_MS = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;
/** How many blocks before a breakpoint the service looks for an earlier cache entry. */
const LOOKBACK_BLOCKS = 20;
const MAX_BREAKPOINTS = 4;

/**
 * The smallest prefix Anthropic caches, by model (the prompt-caching documentation's table): 4,096
 * tokens for Opus 4.5 and Haiku 4.5, 2,048 for the Haiku 3 family, 1,024 for the others.
 */
export function minimumCacheableTokens(model: string): number {
  if (/opus-4-5|haiku-4-5/.test(model)) return 4096;
  if (/haiku/.test(model)) return 2048;
  return 1024;
}

interface Entry {
  ttl: '5m' | '1h';
  expiresAt: number;
}

/**
 * Anthropic's prompt cache as its documentation describes it: a `cache_control` block caches the
 * prefix up to and including itself (tools, then system, then messages), when that prefix reaches
 * the model's minimum length; a later request reads the longest cached prefix found at one of its
 * breakpoints or up to 20 blocks before one; a read refreshes the entry's TTL; at most 4 breakpoints,
 * and a 1-hour breakpoint never after a 5-minute one. Bills what it read, what it wrote (5-minute and
 * 1-hour apart) and the rest as input. Tokens: one per three characters of each block's JSON.
 * The clock is its own, so a test can let ten minutes pass in an instant (`advance`).
 */
export class AnthropicPromptCache {
  readonly requests: CachedRequest[] = [];
  readonly #entries = new Map<string, Entry>();
  readonly #prices: AnthropicPrices;
  #offset = 0;

  constructor(prices: AnthropicPrices = SONNET_PRICES) {
    this.#prices = prices;
  }

  /** Moves the cache's clock forward (entries expire as if that time had passed). */
  advance(ms: number): void {
    this.#offset += ms;
  }

  /** Drops every entry, as the service may (its cache is best-effort). */
  evict(): void {
    this.#entries.clear();
  }

  /** Dollars billed so far. */
  get bill(): number {
    return this.requests.reduce((sum, request) => sum + request.cost, 0);
  }

  /** The service's 400 for a request whose markers break the rules, else undefined. */
  refusal(body: Record<string, unknown>): string | undefined {
    const { breakpoints } = prefixBlocks(body);
    if (breakpoints.length > MAX_BREAKPOINTS)
      return `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints.length}.`;
    const shortFirst = breakpoints.findIndex((b, i) => b.ttl === '1h' && breakpoints[i - 1]?.ttl === '5m');
    if (shortFirst >= 0)
      return 'a ttl=1h cache_control block must not come after a ttl=5m cache_control block';
    return undefined;
  }

  /** Reads and writes the cache for one request and answers its usage (with `outputTokens`). */
  charge(body: Record<string, unknown>, outputTokens: number): AnthropicUsage {
    const now = Date.now() + this.#offset;
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
    const { blocks, breakpoints } = prefixBlocks(body);
    const model = String(body.model);
    const minimum = minimumCacheableTokens(model);
    const hashes: string[] = [];
    const ends: number[] = [];
    let hash = createHash('sha256').update(model).digest('hex');
    let tokens = 0;
    for (const block of blocks) {
      hash = createHash('sha256').update(hash).update(block).digest('hex');
      tokens += Math.ceil(block.length / 3);
      hashes.push(hash);
      ends.push(tokens);
    }
    // The longest cached prefix at a breakpoint or within the lookback window before one.
    let read = 0;
    for (const { index } of breakpoints) {
      for (let i = index; i >= Math.max(0, index - LOOKBACK_BLOCKS + 1); i--) {
        const entry = this.#entries.get(hashes[i]!);
        if (!entry) continue;
        entry.expiresAt = now + TTL_MS[entry.ttl];
        read = Math.max(read, ends[i]!);
        break;
      }
    }
    const written = { '5m': 0, '1h': 0 };
    let covered = read;
    for (const { index, ttl } of breakpoints) {
      const end = ends[index]!;
      if (end < minimum) continue;
      const existing = this.#entries.get(hashes[index]!);
      this.#entries.set(hashes[index]!, {
        ttl: existing && TTL_MS[existing.ttl] > TTL_MS[ttl] ? existing.ttl : ttl,
        expiresAt: now + TTL_MS[ttl],
      });
      if (end > covered) {
        written[ttl] += end - covered;
        covered = end;
      }
    }
    const usage: AnthropicUsage = {
      input_tokens: tokens - covered,
      cache_creation_input_tokens: written['5m'] + written['1h'],
      cache_read_input_tokens: read,
      cache_creation: {
        ephemeral_5m_input_tokens: written['5m'],
        ephemeral_1h_input_tokens: written['1h'],
      },
      output_tokens: outputTokens,
    };
    const p = this.#prices;
    const cost =
      (usage.input_tokens * p.input +
        read * p.cacheRead +
        written['5m'] * p.cacheWrite5m +
        written['1h'] * p.cacheWrite1h +
        outputTokens * p.output) /
      1_000_000;
    this.requests.push({ blocks, breakpoints, usage, cost });
    return usage;
  }
}

type Marked = Record<string, unknown> & { cache_control?: { type: string; ttl?: '5m' | '1h' } };

/** The request's blocks in the order the cache sees them: tools, system blocks, message content blocks. */
function prefixBlocks(body: Record<string, unknown>): Pick<CachedRequest, 'blocks' | 'breakpoints'> {
  const blocks: string[] = [];
  const breakpoints: CachedRequest['breakpoints'] = [];
  const add = (block: Marked, label: string) => {
    const { cache_control: marker, ...rest } = block;
    if (marker) breakpoints.push({ index: blocks.length, ttl: marker.ttl ?? '5m' });
    blocks.push(`${label}${JSON.stringify(rest)}`);
  };
  for (const tool of (body.tools as Marked[] | undefined) ?? []) add(tool, 'tool:');
  const system = body.system as string | Marked[] | undefined;
  if (typeof system === 'string') add({ type: 'text', text: system }, 'system:');
  else for (const block of system ?? []) add(block, 'system:');
  for (const message of body.messages as Array<{ role: string; content: string | Marked[] }>) {
    const content =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    content.forEach((block, i) => add(block, i === 0 ? `${message.role}:` : ''));
  }
  return { blocks, breakpoints };
}
