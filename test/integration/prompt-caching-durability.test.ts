import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { SqliteUsageStore } from '../../src/usage/sqlite.ts';
import { AnthropicPromptCache, SONNET_PRICES } from '../support/providers/anthropic-cache.ts';
import { startAnthropicServer } from '../support/providers/anthropic-server.ts';
import type { ProviderServer } from '../support/providers/scripted-provider.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

describe('prompt-cache usage when a worker is killed mid-run', () => {
  let dir: string;
  let connection: Connection;
  let server: ProviderServer | undefined;
  const processes: NodeProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caching-durability-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await server?.close();
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('counts each step once in the ledger, at the price of what the service billed for the answers it gave', async () => {
    const cache = new AnthropicPromptCache(SONNET_PRICES);
    const call = (n: number) => ({
      toolCalls: [{ id: `toolu_${n}`, name: 'add', args: { a: n, b: 1 } }],
      usage: { input: 0, output: 20 },
    });
    server = await startAnthropicServer(
      [
        call(1),
        call(2),
        // The third step's answer never ends: the worker is killed while it streams.
        { text: 'never finished', chunks: Array.from({ length: 100 }, () => 'x'), chunkDelayMs: 5_000 },
        { text: 'Done after the restart.', usage: { input: 0, output: 9 } },
      ],
      undefined,
      cache,
    );
    const taskQueue = `caching-${randomUUID()}`;
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: taskQueue,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      USAGE_DB: join(dir, 'usage.sqlite'),
      ANTHROPIC_URL: `${server.url}/v1`,
    };
    const first = startNodeProcess('test/fixtures/caching-worker.ts', env);
    processes.push(first);
    await first.waitForLine(/^READY$/);
    const usageStore = new SqliteUsageStore({ path: env.USAGE_DB });
    const agents = new AgentClient({ client: new Client({ connection }), taskQueue, usageStore });
    const handle = await agents.start('cached', 'Add a few numbers, one at a time.');

    await expect.poll(() => server!.bodies.length, { timeout: 30_000 }).toBe(3);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = startNodeProcess('test/fixtures/caching-worker.ts', env);
    processes.push(second);
    const result = await handle.result();
    expect(result.output).toBe('Done after the restart.');

    // The service billed four requests; the killed one never told the worker its usage.
    expect(cache.requests).toHaveLength(4);
    const answered = [0, 1, 3].map((i) => cache.requests[i]!);
    const steps = (await usageStore.entries()).filter((e) => e.key.includes('/step/'));
    expect(steps).toHaveLength(3);
    const sent = (i: number) => {
      const { usage } = cache.requests[i]!;
      return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
    };
    expect(steps.map((e) => e.input_tokens)).toEqual([sent(0), sent(1), sent(3)]);
    // The retried step read what the killed attempt had written.
    expect(cache.requests[3]!.usage.cache_read_input_tokens).toBe(sent(2));
    const report = await agents.usage({ pricing: { 'claude-sonnet-4-5': SONNET_PRICES } });
    expect(report.totals.cost).toBeCloseTo(
      answered.reduce((sum, r) => sum + r.cost, 0),
      9,
    );
    expect(report.totals.input_tokens).toBe(result.metadata.usage.input_tokens);
    expect(report.totals.cached_input_tokens).toBe(result.metadata.usage.cached_input_tokens);
    expect(report.totals.cache_write_5m_tokens).toBe(result.metadata.usage.cache_write_5m_tokens);
    second.child.kill('SIGTERM');
    await second.exited;
    await usageStore.close?.();
  });
});
