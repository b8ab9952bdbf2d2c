import { createAnthropic } from '@ai-sdk/anthropic';
import { afterAll, describe, expect, it } from 'vitest';
import type { CachingOption } from '../../src/caching/options.ts';
import { InMemoryUsageStore } from '../../src/usage/in-memory.ts';
import { AnthropicPromptCache, SONNET_PRICES } from '../support/providers/anthropic-cache.ts';
import { startAnthropicServer } from '../support/providers/anthropic-server.ts';
import type { ProviderServer, ProviderTurn } from '../support/providers/scripted-provider.ts';
import { AddTool } from './tools.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

const MODEL = 'claude-sonnet-4-5';
/** Instructions long enough to cache (about 4,000 tokens as the stand-in counts). */
const INSTRUCTIONS = Array.from(
  { length: 120 },
  (_, i) =>
    `Rule ${i + 1}: when a sum is asked, call add and report the result plainly, citing rule ${i + 1}.`,
).join('\n');

/** `steps - 1` steps that call add, then the answer. */
function toolLoop(steps: number): ProviderTurn[] {
  return [
    ...Array.from({ length: steps - 1 }, (_, i) => ({
      toolCalls: [{ id: `toolu_${i + 1}`, name: 'add', args: { a: i, b: 1 } }],
      usage: { input: 0, output: 20 },
    })),
    { text: 'Done adding.', usage: { input: 0, output: 7 } },
  ];
}

describe('prompt caching with Anthropic (the stand-in implements the service caching rules)', () => {
  const servers: ProviderServer[] = [];
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const server of servers) await server.close();
  });

  async function run(turns: ProviderTurn[], opts: { caching?: CachingOption; systemPrompt?: string } = {}) {
    const cache = new AnthropicPromptCache(SONNET_PRICES);
    const server = await startAnthropicServer(turns, undefined, cache);
    servers.push(server);
    const usageStore = new InMemoryUsageStore();
    const llm = createAnthropic({ apiKey: 'sk-ant-test', baseURL: `${server.url}/v1` })(MODEL);
    const env = await startTestWorker(
      {
        agent: {
          llm,
          tools: [new AddTool()],
          systemPrompt: opts.systemPrompt ?? INSTRUCTIONS,
          ...(opts.caching !== undefined ? { caching: opts.caching } : {}),
        },
      },
      { usageStore },
    );
    workers.push(env);
    const result = await env.agents.run('agent', 'Add a few numbers, one at a time.');
    return { cache, server, result, env };
  }

  it('marks the head and the moving tail, keeps the prefix byte-stable, and each step reads what the one before wrote', async () => {
    const { cache, server, result } = await run(toolLoop(4));
    expect(result.output).toBe('Done adding.');
    expect(cache.requests).toHaveLength(4);
    const systemBlock = 1; // one tool definition, then the system prompt
    for (const [i, request] of cache.requests.entries()) {
      const body = JSON.stringify(server.bodies[i]);
      expect(body.match(/cache_control/g)?.length).toBeLessThanOrEqual(4);
      const marked = request.breakpoints.map((b) => b.index);
      expect(marked[0]).toBe(systemBlock);
      expect(marked.at(-1)).toBe(request.blocks.length - 1);
      expect(request.breakpoints.every((b) => b.ttl === '5m')).toBe(true);
      if (i === 0) {
        expect(request.usage.cache_read_input_tokens).toBe(0);
        continue;
      }
      const previous = cache.requests[i - 1]!;
      const written = previous.breakpoints.at(-1)!.index;
      // Byte-stable: everything the step before cached is sent again unchanged...
      expect(request.blocks.slice(0, written + 1)).toEqual(previous.blocks.slice(0, written + 1));
      // ...marked where it was written, and read from the cache whole.
      expect(marked).toContain(written);
      const writtenTokens =
        previous.usage.cache_read_input_tokens + previous.usage.cache_creation_input_tokens;
      expect(request.usage.cache_read_input_tokens).toBe(writtenTokens);
      expect(request.usage.cache_creation_input_tokens).toBeGreaterThan(0);
      expect(request.usage.cache_creation_input_tokens).toBeLessThan(
        request.usage.cache_read_input_tokens / 10,
      );
    }
    // The run's usage is the service's, class by class.
    const billed = cache.requests.map(({ usage }) => ({
      input_tokens: usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens,
      output_tokens: usage.output_tokens,
      ...(usage.cache_read_input_tokens ? { cached_input_tokens: usage.cache_read_input_tokens } : {}),
      cache_write_5m_tokens: usage.cache_creation.ephemeral_5m_input_tokens,
    }));
    expect(result.metadata.step_usage).toMatchObject(billed);
    expect(result.metadata.usage).toMatchObject({
      input_tokens: billed.reduce((sum, b) => sum + b.input_tokens, 0),
      cached_input_tokens: billed.reduce((sum, b) => sum + (b.cached_input_tokens ?? 0), 0),
      cache_write_5m_tokens: billed.reduce((sum, b) => sum + b.cache_write_5m_tokens, 0),
    });
  });

  it("prices the ledger's cache reads and writes so its cost is the service's bill", async () => {
    const { cache, env } = await run(toolLoop(5));
    const report = await env.agents.usage({ pricing: { [MODEL]: SONNET_PRICES } });
    expect(cache.bill).toBeGreaterThan(0);
    expect(report.totals.cost).toBeCloseTo(cache.bill, 9);
    expect(report.totals.cache_write_5m_tokens).toBe(
      cache.requests.reduce((sum, r) => sum + r.usage.cache_creation.ephemeral_5m_input_tokens, 0),
    );
    // Priced as plain input (no cache prices), the same run costs more than the bill: writes are not input.
    const plain = await env.agents.usage({ pricing: { [MODEL]: { input: 3, output: 15 } } });
    expect(plain.totals.cost).not.toBeCloseTo(cache.bill, 4);
  });

  it('sends no marker with caching off, and pays full input for every step', async () => {
    const { cache, server, result } = await run(toolLoop(3), { caching: false });
    expect(server.bodies.map((body) => JSON.stringify(body))).not.toContainEqual(
      expect.stringContaining('cache_control'),
    );
    expect(cache.requests.every((r) => r.usage.cache_read_input_tokens === 0)).toBe(true);
    expect(result.metadata.usage.cached_input_tokens).toBeUndefined();
    expect(result.metadata.usage.cache_write_5m_tokens).toBeUndefined();
  });

  it('marks nothing below the model minimum cacheable length', async () => {
    const { server } = await run(toolLoop(2), { systemPrompt: 'You add numbers.' });
    expect(server.bodies).toHaveLength(2);
    for (const body of server.bodies) expect(JSON.stringify(body)).not.toContain('cache_control');
  });

  it('uses the 1-hour TTL when asked', async () => {
    const { cache } = await run(toolLoop(2), { caching: { ttl: '1h' } });
    expect(cache.requests.map((r) => r.breakpoints.map((b) => b.ttl))).toEqual([
      ['1h', '1h'],
      ['1h', '1h', '1h'],
    ]);
    expect(cache.requests[0]!.usage.cache_creation.ephemeral_1h_input_tokens).toBeGreaterThan(0);
    expect(cache.requests[1]!.usage.cache_read_input_tokens).toBeGreaterThan(0);
  });
});
