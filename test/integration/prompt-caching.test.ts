import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { afterAll, describe, expect, it } from 'vitest';
import type { CachingOption } from '../../src/caching/options.ts';
import { readCacheTrace, writeCacheTrace } from '../../src/caching/trace.ts';
import { aiSdkModel } from '../../src/models/ai-sdk.ts';
import { InMemoryUsageStore } from '../../src/usage/in-memory.ts';
import { AnthropicPromptCache, SONNET_PRICES } from '../support/providers/anthropic-cache.ts';
import { startAnthropicServer } from '../support/providers/anthropic-server.ts';
import { LONG_INSTRUCTIONS } from '../support/providers/long-instructions.ts';
import { OpenAIPromptCache } from '../support/providers/openai-cache.ts';
import { startOpenAIChatServer } from '../support/providers/openai-chat-server.ts';
import {
  addingLoop,
  type ProviderServer,
  type ProviderTurn,
} from '../support/providers/scripted-provider.ts';
import { json, startRecordingServer } from '../support/http-server.ts';
import { AddTool } from './tools.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

const MODEL = 'claude-sonnet-4-5';
const toolLoop = addingLoop;

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
          systemPrompt: opts.systemPrompt ?? LONG_INSTRUCTIONS,
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

  it('lets a run or a chat session turn caching off for itself, and refuses a caching option it cannot read', async () => {
    const cache = new AnthropicPromptCache(SONNET_PRICES);
    const server = await startAnthropicServer(
      [...toolLoop(2), ...toolLoop(2), { text: 'Plain turn.' }],
      undefined,
      cache,
    );
    servers.push(server);
    const llm = createAnthropic({ apiKey: 'sk-ant-test', baseURL: `${server.url}/v1` })(MODEL);
    const env = await startTestWorker({
      agent: { llm, tools: [new AddTool()], systemPrompt: LONG_INSTRUCTIONS },
    });
    workers.push(env);
    await env.agents.run('agent', 'Add 1 and 2.', { caching: false });
    await env.agents.run('agent', 'Add 1 and 2.');
    const session = env.agents.chatSession('agent', { caching: false, memoryStore: env.memoryStore });
    expect((await session.send('Hello.')).output).toBe('Plain turn.');
    expect(server.bodies.map((body) => JSON.stringify(body).includes('cache_control'))).toEqual([
      false,
      false,
      true,
      true,
      false,
    ]);
    await expect(
      env.agents.run('agent', 'Add 1 and 2.', { caching: { ttl: '2h' } as never }),
    ).rejects.toThrow(/The run: caching must be 'auto', false or \{ ttl/);
  });

  it('keeps reading the head after a compaction, and says in metadata.context and the step note that it broke the rest', async () => {
    const cache = new AnthropicPromptCache(SONNET_PRICES);
    const server = await startAnthropicServer(
      Array.from({ length: 3 }, (_, i) => ({ text: `Noted ${i + 1}.` })),
      undefined,
      cache,
    );
    servers.push(server);
    const llm = createAnthropic({ apiKey: 'sk-ant-test', baseURL: `${server.url}/v1` })(MODEL);
    const env = await startTestWorker({
      agent: {
        llm,
        systemPrompt: LONG_INSTRUCTIONS,
        context: { maxInputTokens: 7_000, compaction: 'truncate', keepRecentTurns: 1 },
      },
    });
    workers.push(env);
    const chat = env.agents.chatSession('agent', {
      sessionId: `compact-${Date.now()}`,
      memoryStore: env.memoryStore,
    });
    const note = (i: number) => `Note ${i}: ${'the shipment left the depot and is on its way. '.repeat(70)}`;
    await chat.send(note(1));
    await chat.send(note(2));
    const third = await chat.send(note(3));
    expect(third.metadata.context?.compactions).toBeGreaterThan(0);
    expect(third.metadata.context?.cache_breaks).toBe(1);
    expect(third.metadata.step_usage[0]!.cache?.reason).toBe('compaction');
    const last = cache.requests.at(-1)!;
    // The tools and system prompt were still read from the cache.
    const head = cache.requests[0]!.usage.cache_creation_input_tokens;
    expect(last.usage.cache_read_input_tokens).toBeGreaterThan(0);
    expect(last.usage.cache_read_input_tokens).toBeLessThan(head);
  });

  it('marks nothing below the model minimum cacheable length', async () => {
    const { server } = await run(toolLoop(2), { systemPrompt: 'You add numbers.' });
    expect(server.bodies).toHaveLength(2);
    for (const body of server.bodies) expect(JSON.stringify(body)).not.toContain('cache_control');
  });

  it('chooses the 1-hour TTL for a chat session, and for an agent whose tools wait for approval', async () => {
    const cache = new AnthropicPromptCache(SONNET_PRICES);
    const server = await startAnthropicServer(
      [{ text: 'First answer.' }, { text: 'Second answer.' }, ...toolLoop(2)],
      undefined,
      cache,
    );
    servers.push(server);
    const llm = createAnthropic({ apiKey: 'sk-ant-test', baseURL: `${server.url}/v1` })(MODEL);
    const env = await startTestWorker({
      chat: { llm, tools: [new AddTool()], systemPrompt: LONG_INSTRUCTIONS },
      careful: { llm, tools: [new AddTool()], systemPrompt: LONG_INSTRUCTIONS, approval: { tools: ['add'] } },
    });
    workers.push(env);
    const chat = env.agents.chatSession('chat', {
      sessionId: `cache-${Date.now()}`,
      memoryStore: env.memoryStore,
    });
    await chat.send('Hello.');
    const second = await chat.send('And again.');
    const [turn1, turn2] = cache.requests;
    expect(turn1!.breakpoints.map((b) => b.ttl)).toEqual(['1h', '1h']);
    expect(turn2!.breakpoints.map((b) => b.ttl)).toEqual(['1h', '1h', '1h']);
    // The second turn reads what the first wrote: its whole request up to the first question.
    expect(turn2!.usage.cache_read_input_tokens).toBe(turn1!.usage.cache_creation.ephemeral_1h_input_tokens);
    expect(second.metadata.usage.cache_write_1h_tokens).toBe(
      turn2!.usage.cache_creation.ephemeral_1h_input_tokens,
    );
    expect(second.metadata.step_usage[0]!.cache).toBeUndefined();
    // The service dropped its entries: the next turn writes it all again, and its usage says why.
    cache.evict();
    server.turns.unshift({ text: 'Third answer.' });
    const third = await chat.send('Once more.');
    const note = third.metadata.step_usage[0]!.cache;
    expect(note?.reason).toBe('unknown');
    expect(note?.message).toMatch(
      /^Wrote \d+ tokens to the prompt cache and read 0: nothing the runtime changed/,
    );

    const handle = await env.agents.start('careful', 'Add 1 and 2.');
    await expect.poll(async () => (await handle.pendingApprovals()).length, { timeout: 10_000 }).toBe(1);
    const [pending] = await handle.pendingApprovals();
    await handle.approve(pending!.call_id);
    await handle.result();
    expect(cache.requests.slice(3).flatMap((r) => r.breakpoints.map((b) => b.ttl))).not.toContain('5m');
    expect(cache.requests).toHaveLength(5);
  });

  it('says a step missed because the cached prefix expired, when the next turn comes after its TTL', async () => {
    const cache = new AnthropicPromptCache(SONNET_PRICES);
    const server = await startAnthropicServer(
      [{ text: 'First answer.' }, { text: 'Second answer.' }],
      undefined,
      cache,
    );
    servers.push(server);
    const llm = createAnthropic({ apiKey: 'sk-ant-test', baseURL: `${server.url}/v1` })(MODEL);
    const env = await startTestWorker({
      chat: { llm, systemPrompt: LONG_INSTRUCTIONS, caching: { ttl: '5m' } },
    });
    workers.push(env);
    const sessionId = `expiry-${Date.now()}`;
    const chat = env.agents.chatSession('chat', { sessionId, memoryStore: env.memoryStore });
    await chat.send('Hello.');
    // Six minutes pass: for the service's cache, and for the trace the first turn left.
    cache.advance(6 * 60_000);
    const trace = await readCacheTrace(env.memoryStore, sessionId);
    expect(trace?.cached).toBeGreaterThan(0);
    await writeCacheTrace(env.memoryStore, sessionId, Number.MAX_SAFE_INTEGER, {
      ...trace!,
      at: trace!.at - 6 * 60_000,
    });
    const second = await chat.send('And again.');
    expect(cache.requests[1]!.usage.cache_read_input_tokens).toBe(0);
    const note = second.metadata.step_usage[0]!.cache;
    expect(note?.reason).toBe('ttl_expired');
    expect(note?.message).toMatch(/read 0: the cached prefix expired before this step\.$/);
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

describe('prompt caching with OpenAI (the stand-in implements automatic prefix caching)', () => {
  it('sends one prompt_cache_key per conversation, and counts the cached part of each prompt as the service does', async () => {
    const cache = new OpenAIPromptCache();
    const server = await startOpenAIChatServer([...toolLoop(3), ...toolLoop(2)], undefined, cache);
    const usageStore = new InMemoryUsageStore();
    const llm = createOpenAI({ apiKey: 'sk-openai-test', baseURL: `${server.url}/v1` }).chat('gpt-5');
    const env = await startTestWorker(
      { agent: { llm, tools: [new AddTool()], systemPrompt: LONG_INSTRUCTIONS } },
      { usageStore },
    );
    try {
      const first = await env.agents.run('agent', 'Add a few numbers, one at a time.');
      const second = await env.agents.run('agent', 'Add one more.');
      const keys = cache.requests.map((r) => r.key);
      expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
      expect(keys.slice(0, 3)).toEqual([keys[0], keys[0], keys[0]]);
      expect(keys.slice(3)).toEqual([keys[3], keys[3]]);
      expect(keys[3]).not.toBe(keys[0]);
      const cached = cache.requests.map((r) => r.usage.prompt_tokens_details.cached_tokens);
      expect(cached[0]).toBe(0);
      expect(cached[1]).toBeGreaterThan(1024);
      expect(first.metadata.step_usage.map((s) => s.cached_input_tokens ?? 0)).toEqual(cached.slice(0, 3));
      expect(second.metadata.step_usage.map((s) => s.cached_input_tokens ?? 0)).toEqual(cached.slice(3));
      const price = { input: 1.25, output: 10, cacheRead: 0.125 };
      const bill = cache.requests.reduce(
        (sum, { usage }) =>
          sum +
          ((usage.prompt_tokens - usage.prompt_tokens_details.cached_tokens) * price.input +
            usage.prompt_tokens_details.cached_tokens * price.cacheRead +
            usage.completion_tokens * price.output) /
            1_000_000,
        0,
      );
      const report = await env.agents.usage({ pricing: { 'gpt-5': price } });
      expect(report.totals.cost).toBeCloseTo(bill, 9);
    } finally {
      await env.stop();
      await server.close();
    }
  });
});

describe('explicit OpenAI breakpoints', () => {
  it.each([
    ['gpt-5.6', true],
    ['gpt-6-astra', true],
    ['gpt-5', false],
    ['gpt-4o', false],
  ])('marks the end of the system prompt for %s: %s', async (modelId, marked) => {
    const server = await startOpenAIChatServer([{ text: 'Hi.' }]);
    try {
      const llm = aiSdkModel(
        createOpenAI({ apiKey: 'sk-openai-test', baseURL: `${server.url}/v1` }).chat(modelId),
      );
      await llm.generate({
        messages: [
          { role: 'system', content: LONG_INSTRUCTIONS },
          { role: 'user', content: 'Hello.' },
        ],
        tools: [],
        cache: { ttl: '5m', key: 'conversation-key' },
      });
      const [system] = server.bodies[0]!.messages as Array<{ role: string; content: unknown }>;
      expect(server.bodies[0]!.prompt_cache_key).toBe('conversation-key');
      expect(system!.role).toMatch(/^(system|developer)$/); // reasoning models take it as developer
      if (marked)
        expect(system!.content).toEqual([
          { type: 'text', text: LONG_INSTRUCTIONS, prompt_cache_breakpoint: { mode: 'explicit' } },
        ]);
      else expect(system!.content).toBe(LONG_INSTRUCTIONS);
    } finally {
      await server.close();
    }
  });
});

describe("OpenAI's cache writes by TTL (the Responses API)", () => {
  it('counts 30-minute writes as short ones and 12-hour writes as long ones', async () => {
    const server = await startRecordingServer((_request, response) =>
      json(response, 200, {
        id: 'resp_1',
        object: 'response',
        created_at: 1_764_000_000,
        status: 'completed',
        model: 'gpt-5.6',
        output: [
          {
            type: 'message',
            id: 'msg_1',
            status: 'completed',
            role: 'assistant',
            content: [{ type: 'output_text', text: 'Hi.', annotations: [] }],
          },
        ],
        usage: {
          input_tokens: 5000,
          input_tokens_details: {
            cached_tokens: 1000,
            cache_write_tokens: 3000,
            cache_write_tokens_details: { ttl_30m_tokens: 1200, ttl_12h_tokens: 1800 },
          },
          output_tokens: 3,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 5003,
        },
      }),
    );
    try {
      const llm = aiSdkModel(
        createOpenAI({ apiKey: 'sk-openai-test', baseURL: `${server.url}/v1` }).responses('gpt-5.6'),
        { stream: false },
      );
      const answer = await llm.generate({
        messages: [{ role: 'user', content: 'Hello.' }],
        tools: [],
        cache: { ttl: '5m', key: 'conversation-key' },
      });
      expect(server.requests[0]!.path).toBe('/v1/responses');
      expect(answer.usage).toEqual({
        input_tokens: 5000,
        output_tokens: 3,
        total_tokens: 5003,
        cached_input_tokens: 1000,
        cache_write_5m_tokens: 1200,
        cache_write_1h_tokens: 1800,
      });
    } finally {
      await server.close();
    }
  });
});

describe('prompt-cache tokens on the token metric', () => {
  class CollectingReader extends MetricReader {
    protected override async onForceFlush(): Promise<void> {}
    protected override async onShutdown(): Promise<void> {}
  }

  it('records cache reads and 5-minute writes as token types beside input and output', async () => {
    const cache = new AnthropicPromptCache(SONNET_PRICES);
    const server = await startAnthropicServer(toolLoop(3), undefined, cache);
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const llm = createAnthropic({ apiKey: 'sk-ant-test', baseURL: `${server.url}/v1` })(MODEL);
    const env = await startTestWorker(
      { agent: { llm, tools: [new AddTool()], systemPrompt: LONG_INSTRUCTIONS } },
      { telemetry: { meterProvider } },
    );
    try {
      const { metadata } = await env.agents.run('agent', 'Add a few numbers, one at a time.');
      const { resourceMetrics } = await reader.collect();
      const points = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((m) => m.descriptor.name === 'gen_ai.client.token.usage')?.dataPoints as
        Array<{ attributes: Record<string, unknown>; value: { sum?: number } }> | undefined;
      const sum = (type: string) =>
        points?.find((p) => p.attributes['gen_ai.token.type'] === type)?.value.sum;
      expect(sum('input')).toBe(metadata.usage.input_tokens);
      expect(sum('cache_read')).toBe(metadata.usage.cached_input_tokens);
      expect(sum('cache_write_5m')).toBe(metadata.usage.cache_write_5m_tokens);
      expect(sum('cache_read')).toBe(cache.requests.reduce((n, r) => n + r.usage.cache_read_input_tokens, 0));
      expect(sum('cache_write_1h')).toBeUndefined();
    } finally {
      await env.stop();
      await meterProvider.shutdown();
      await server.close();
    }
  });
});
