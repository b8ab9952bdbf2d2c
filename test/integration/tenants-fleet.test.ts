import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import type { AgentResult } from '../../src/common/run.ts';
import { QuotaExceededError } from '../../src/errors.ts';
import { PostgresUsageStore } from '../../src/usage/postgres.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

const url = inject('postgresUrl');

describe.skipIf(!url)('a fleet of workers on one PostgreSQL usage ledger', () => {
  let dir: string;
  let connection: Connection;
  const processes: NodeProcess[] = [];
  const stores: PostgresUsageStore[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tenants-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    for (const store of stores) await store.close();
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Worker processes in `tenants` mode on a task queue and ledger table of their own. */
  function fleet(extra: Record<string, string> = {}) {
    const taskQueue = `tenants-${randomUUID()}`;
    const table = `usage_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: taskQueue,
      PG_URL: url,
      USAGE_TABLE: table,
      MARKER_FILE: join(dir, `marker-${taskQueue}.log`),
      MODE: 'tenants',
      ...extra,
    };
    const usageStore = new PostgresUsageStore({ connectionString: url, table });
    stores.push(usageStore);
    const agents = new AgentClient({ client: new Client({ connection }), taskQueue, usageStore });
    const start = () => {
      const worker = startNodeProcess('test/fixtures/worker-process.ts', env);
      processes.push(worker);
      return worker;
    };
    return { agents, start };
  }

  it('counts 20 runs of 3 tenants exactly once when a worker is SIGKILLed mid-way, and prices them', async () => {
    const { agents, start } = fleet({ MODEL_DELAY_MS: '150' });
    const first = start();
    await first.waitForLine(/^READY$/);
    const tenants = ['acme', 'globex', 'initech'];
    const handles = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        agents.start('counter', `Task ${i}: ${'words '.repeat(i * 7)}`, { tenant: tenants[i % 3] }),
      ),
    );
    // Some steps are done, others in flight: kill the worker, and let a second one finish the runs.
    await first.waitForLine(/^MODEL_STEP 12$/);
    first.child.kill('SIGKILL');
    await first.exited;
    const second = start();
    await second.waitForLine(/^READY$/);
    const results: AgentResult[] = await Promise.all(handles.map((h) => h.result()));
    expect(results.every((r) => r.metadata.stop_reason === 'completed')).toBe(true);

    const pricing = { 'gpt-test': { input: 3, output: 15 } };
    const report = await agents.usage({ groupBy: 'tenant', pricing });
    const sum = (list: AgentResult[], key: 'input_tokens' | 'output_tokens' | 'total_tokens') =>
      list.reduce((n, r) => n + r.metadata.usage[key], 0);
    expect(report.totals.input_tokens).toBe(sum(results, 'input_tokens'));
    expect(report.totals.output_tokens).toBe(sum(results, 'output_tokens'));
    expect(report.totals.total_tokens).toBe(sum(results, 'total_tokens'));
    expect(report.totals.runs).toBe(20);
    expect(report.totals.tool_calls).toBe(results.reduce((n, r) => n + (r.metadata.tool_calls ?? 0), 0));
    expect(report.totals.cost).toBeCloseTo(
      (sum(results, 'input_tokens') * 3 + sum(results, 'output_tokens') * 15) / 1_000_000,
      12,
    );
    for (const [i, tenant] of tenants.entries()) {
      const mine = results.filter((_, j) => j % 3 === i);
      expect(report.groups?.find((g) => g.key === tenant)).toMatchObject({
        total_tokens: sum(mine, 'total_tokens'),
        runs: mine.length,
      });
    }
  });

  it('holds maxConcurrentRuns: 2 across two worker processes, and frees the slots when the runs end', async () => {
    const { agents, start } = fleet({
      MODEL_DELAY_MS: '2500',
      QUOTAS: JSON.stringify({ perTenant: { maxConcurrentRuns: 2 } }),
    });
    const workers = [start(), start()];
    await Promise.all(workers.map((w) => w.waitForLine(/^READY$/)));
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const handle = await agents.start('counter', `Burst ${i}`, { tenant: 'acme' });
        return handle.result().catch((error: unknown) => error);
      }),
    );
    const completed = outcomes.filter((o) => !(o instanceof Error));
    const refused = outcomes.filter((o): o is QuotaExceededError => o instanceof QuotaExceededError);
    expect(completed).toHaveLength(2);
    expect(refused).toHaveLength(4);
    expect(refused[0]).toMatchObject({
      quota: 'maxConcurrentRuns',
      limit: 2,
      tenant: 'acme',
      resetsAt: undefined,
    });
    // Once its runs ended, acme's slots are free again.
    expect((await agents.run('counter', 'after', { tenant: 'acme' })).metadata.stop_reason).toBe('completed');
    expect((await agents.usage({ tenant: 'acme' })).totals.runs).toBe(3);
  });
});
