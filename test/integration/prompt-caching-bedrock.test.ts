import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import { afterAll, describe, expect, it } from 'vitest';
import type { CachingOption } from '../../src/caching/options.ts';
import { InMemoryUsageStore } from '../../src/usage/in-memory.ts';
import { AnthropicPromptCache, SONNET_PRICES } from '../support/providers/anthropic-cache.ts';
import { startBedrockConverseServer } from '../support/providers/bedrock-converse-server.ts';
import { LONG_INSTRUCTIONS } from '../support/providers/long-instructions.ts';
import {
  addingLoop,
  type ProviderServer,
  type ProviderTurn,
} from '../support/providers/scripted-provider.ts';
import { AddTool } from './tools.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const toolLoop = (steps: number) => addingLoop(steps, 'tooluse_');

type Block = Record<string, unknown>;
/** Where a Converse request put its cache points: after the system prompt, and after which message. */
function cachePoints(body: Record<string, unknown>): { system: boolean; messages: number[]; ttls: string[] } {
  const points = (blocks: Block[]) =>
    blocks.filter((b) => b.cachePoint).map((b) => b.cachePoint as { ttl?: string });
  const system = points((body.system as Block[] | undefined) ?? []);
  const messages = (body.messages as Array<{ content: Block[] }>).map((m) => points(m.content));
  return {
    system: system.length === 1 && Boolean((body.system as Block[]).at(-1)!.cachePoint),
    messages: messages.flatMap((found, index) => (found.length ? [index] : [])),
    ttls: [...system, ...messages.flat()].map((p) => p.ttl ?? '5m'),
  };
}

describe('prompt caching with Claude on Amazon Bedrock (Converse, through @ai-sdk/amazon-bedrock)', () => {
  const servers: ProviderServer[] = [];
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const server of servers) await server.close();
  });

  async function start(turns: ProviderTurn[], caching?: CachingOption) {
    const cache = new AnthropicPromptCache(SONNET_PRICES);
    const server = await startBedrockConverseServer(MODEL, turns, cache);
    servers.push(server);
    const usageStore = new InMemoryUsageStore();
    const llm = createAmazonBedrock({ region: 'us-east-1', apiKey: 'bedrock-test-key', baseURL: server.url })(
      MODEL,
    );
    const env = await startTestWorker(
      {
        agent: {
          llm,
          tools: [new AddTool()],
          systemPrompt: LONG_INSTRUCTIONS,
          ...(caching !== undefined ? { caching } : {}),
        },
      },
      { usageStore },
    );
    workers.push(env);
    return { cache, server, env };
  }

  it('puts cache points after the system prompt and on the moving tail, and each step reads what the one before wrote', async () => {
    const { cache, server, env } = await start(toolLoop(4));
    const result = await env.agents.run('agent', 'Add a few numbers, one at a time.');
    expect(result.output).toBe('Done adding.');
    expect(server.bodies).toHaveLength(4);
    for (const [i, body] of server.bodies.entries()) {
      const points = cachePoints(body);
      expect(points.system).toBe(true);
      expect(points.ttls.length).toBeLessThanOrEqual(4);
      expect(points.ttls.every((ttl) => ttl === '5m')).toBe(true);
      expect(points.messages.at(-1)).toBe((body.messages as unknown[]).length - 1);
      if (i > 0) {
        const previous = cache.requests[i - 1]!.usage;
        expect(cache.requests[i]!.usage.cache_read_input_tokens).toBe(
          previous.cache_read_input_tokens + previous.cache_creation_input_tokens,
        );
      }
    }
    // The run's usage is the service's, class by class.
    expect(result.metadata.step_usage).toMatchObject(
      cache.requests.map(({ usage }) => ({
        input_tokens: usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens,
        output_tokens: usage.output_tokens,
        ...(usage.cache_read_input_tokens ? { cached_input_tokens: usage.cache_read_input_tokens } : {}),
        cache_write_5m_tokens: usage.cache_creation.ephemeral_5m_input_tokens,
      })),
    );
    const report = await env.agents.usage({ pricing: { [MODEL]: SONNET_PRICES } });
    expect(cache.bill).toBeGreaterThan(0);
    expect(report.totals.cost).toBeCloseTo(cache.bill, 9);
  });

  it('writes for 1 hour in a chat session, counted apart from 5-minute writes', async () => {
    const { cache, server, env } = await start([{ text: 'First answer.' }, { text: 'Second answer.' }]);
    const chat = env.agents.chatSession('agent', {
      sessionId: `bedrock-${Date.now()}`,
      memoryStore: env.memoryStore,
    });
    await chat.send('Hello.');
    const second = await chat.send('And again.');
    expect(server.bodies.map((body) => cachePoints(body).ttls)).toEqual([
      ['1h', '1h'],
      ['1h', '1h', '1h'],
    ]);
    const [turn1, turn2] = cache.requests;
    expect(turn2!.usage.cache_read_input_tokens).toBe(turn1!.usage.cache_creation.ephemeral_1h_input_tokens);
    expect(second.metadata.usage.cache_write_1h_tokens).toBe(
      turn2!.usage.cache_creation.ephemeral_1h_input_tokens,
    );
    expect(second.metadata.usage.cache_write_5m_tokens).toBeUndefined();
    const report = await env.agents.usage({ pricing: { [MODEL]: SONNET_PRICES } });
    expect(report.totals.cost).toBeCloseTo(cache.bill, 9);
  });

  it('sends no cache point with caching off', async () => {
    const { server, env } = await start(toolLoop(2), false);
    await env.agents.run('agent', 'Add 1 and 2.');
    expect(server.bodies).toHaveLength(2);
    for (const body of server.bodies) expect(JSON.stringify(body)).not.toContain('cachePoint');
  });
});
