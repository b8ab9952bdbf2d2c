import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { InMemoryUsageStore } from '../../src/usage/in-memory.ts';
import { PostgresUsageStore } from '../../src/usage/postgres.ts';
import { usageEntry } from '../../src/usage/recorder.ts';
import { SqliteUsageStore } from '../../src/usage/sqlite.ts';
import { summarizeUsage } from '../../src/usage/summary.ts';
import type { UsageEntry, UsageStore } from '../../src/usage/types.ts';

const url = inject('postgresUrl');
const DAY = 86_400_000;
const day1 = Date.UTC(2026, 10, 20, 10);
const day2 = day1 + DAY;

function line(key: string, fields: Partial<UsageEntry>): UsageEntry {
  const base = { key, at: day1, agent: 'support', model: 'openai:gpt-test', workflow_id: key.split('/')[0]! };
  return usageEntry({ ...base, ...fields }, fields.tenant ?? 'acme');
}

const tokens = (input: number, output: number, cached = 0) => ({
  input_tokens: input,
  output_tokens: output,
  cached_input_tokens: cached,
  total_tokens: input + output,
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'usage-stores-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const stores: Array<[string, () => UsageStore, boolean]> = [
  ['InMemoryUsageStore', () => new InMemoryUsageStore(), false],
  ['SqliteUsageStore', () => new SqliteUsageStore({ path: join(dir, `${randomUUID()}.sqlite`) }), false],
  [
    'PostgresUsageStore',
    () => new PostgresUsageStore({ connectionString: url, table: `usage_${randomUUID().slice(0, 8)}` }),
    !url,
  ],
];

describe.each(stores)('%s', (_name, make, skip) => {
  it.skipIf(skip)('adds up by tenant, agent, model and day, within since/until, with cost', async () => {
    const store = make();
    try {
      await store.record(line('w1/r1/step/w1/2', { ...tokens(100, 20, 40) }));
      await store.record(
        line('w1/r1/run/w1/0', { runs: 1, sub_runs: 1, wall_ms: 900, tool_calls: { note: 2 } }),
      );
      await store.record(line('w2/r1/step/w2/2', { ...tokens(50, 10), agent: 'billing', model: 'local' }));
      await store.record(line('w3/r1/step/w3/2', { ...tokens(7, 3), tenant: 'globex', at: day2 }));
      await store.record(
        line('w3/r1/run/w3/0', { tenant: 'globex', at: day2, runs: 1, tool_calls: { note: 1, add: 1 } }),
      );

      const all = await store.entries();
      expect(all.map((e) => e.key)).toEqual([
        'w1/r1/run/w1/0',
        'w1/r1/step/w1/2',
        'w2/r1/step/w2/2',
        'w3/r1/run/w3/0',
        'w3/r1/step/w3/2',
      ]);
      const pricing = { 'gpt-test': { input: 2, output: 10, cachedInput: 0.5 } };
      const byTenant = summarizeUsage(await store.sums({}, 'tenant'), { groupBy: 'tenant', pricing });
      expect(byTenant.totals).toMatchObject({
        input_tokens: 157,
        output_tokens: 33,
        cached_input_tokens: 40,
        total_tokens: 190,
        runs: 2,
        sub_runs: 1,
        tool_calls: 4,
        tools: { note: 3, add: 1 },
        wall_ms: 900,
      });
      // gpt-test: 60 fresh input at 2, 40 cached at 0.5, 20 + 3 output at 10, 7 input at 2; `local` has no price.
      expect(byTenant.totals.cost).toBeCloseTo((60 * 2 + 40 * 0.5 + 20 * 10 + 7 * 2 + 3 * 10) / 1e6, 12);
      expect(byTenant.unpriced_models).toEqual(['local']);
      expect(byTenant.groups?.map((g) => [g.key, g.total_tokens, g.runs])).toEqual([
        ['acme', 180, 1],
        ['globex', 10, 1],
      ]);
      const byAgent = summarizeUsage(await store.sums({}, 'agent'), { groupBy: 'agent' });
      expect(byAgent.groups?.map((g) => [g.key, g.total_tokens])).toEqual([
        ['support', 130],
        ['billing', 60],
      ]);
      const byModel = summarizeUsage(await store.sums({}, 'model'), { groupBy: 'model' });
      expect(byModel.groups?.map((g) => [g.key, g.total_tokens])).toEqual([
        ['openai:gpt-test', 130],
        ['local', 60],
      ]);
      const byDay = summarizeUsage(await store.sums({}, 'day'), { groupBy: 'day' });
      expect(byDay.groups?.map((g) => [g.key, g.total_tokens])).toEqual([
        ['2026-11-20', 180],
        ['2026-11-21', 10],
      ]);

      // Without groupBy, one line per model (and one of tool calls); within since/until.
      const plain = summarizeUsage(await store.sums({ tenant: 'acme', until: new Date(day2) }));
      expect(plain.totals).toMatchObject({ total_tokens: 180, runs: 1, tools: { note: 2 } });
      expect(plain.groups).toBeUndefined();
      const since = await store.entries({ since: new Date(day2) });
      expect(since.map((e) => e.tenant)).toEqual(['globex', 'globex']);
      const until = await store.entries({ until: new Date(day2) });
      expect(until).toHaveLength(3);
      expect(await store.entries({ tenant: 'acme', agent: 'billing' })).toHaveLength(1);
      expect(await store.tokensSince('acme', new Date(day1))).toBe(180);
      expect(await store.tokensSince('acme', new Date(day1 + 1))).toBe(0);
      expect(await store.tokensSince('acme', new Date(day1), 'billing')).toBe(60);
    } finally {
      await store.close?.();
    }
  });

  it.skipIf(skip)('writes a key once: a retry replaces it, an older attempt does not', async () => {
    const store = make();
    try {
      const key = 'w9/r1/step/w9/4';
      await store.record(line(key, tokens(10, 1)), { writer: 'r1/5', attempt: 1 });
      await store.record(line(key, tokens(30, 3)), { writer: 'r1/5', attempt: 2 });
      await store.record(line(key, tokens(99, 9)), { writer: 'r1/5', attempt: 1 });
      const entries = await store.entries();
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ input_tokens: 30, output_tokens: 3 });
    } finally {
      await store.close?.();
    }
  });

  it.skipIf(skip)('admits while the counts allow it, takes one slot per run, and frees it', async () => {
    const store = make();
    const now = Date.now();
    // Runs a and c are of agent x, b of agent y: the agent's counts see only its own.
    const agentOf: Record<string, string> = { a: 'x', b: 'y', c: 'x' };
    const ask = (workflowId: string) =>
      store.admit(
        {
          tenant: 'acme',
          agent: agentOf[workflowId]!,
          workflowId,
          now,
          start: line(`${workflowId}/r/run/${workflowId}/0`, {
            at: now,
            runs: 1,
            agent: agentOf[workflowId]!,
          }),
        },
        (counts) => (counts.tenant.running.length >= 2 ? counts : undefined),
      );
    try {
      expect(await ask('a')).toBeUndefined();
      expect(await ask('b')).toBeUndefined();
      // A retry of an admitted run is admitted again without counting.
      expect(await ask('a')).toBeUndefined();
      const refused = await ask('c');
      expect(refused?.tenant.running.sort()).toEqual(['a', 'b']);
      expect(refused?.tenant.recentStarts).toHaveLength(2);
      expect(refused?.agent.running).toEqual(['a']);
      expect(refused?.agent.recentStarts).toHaveLength(1);
      await store.release('a');
      expect(await ask('c')).toBeUndefined();
      expect((await store.entries({ tenant: 'acme' })).filter((e) => e.runs === 1)).toHaveLength(3);
    } finally {
      await store.close?.();
    }
  });
});
