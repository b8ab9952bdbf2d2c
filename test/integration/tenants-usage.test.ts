import { DataPointType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { WorkflowHandle } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { createTriggerHandler } from '../../src/triggers/handler.ts';
import { z } from 'zod';
import type { AgentRunOutput } from '../../src/common/run.ts';
import { QuotaExceededError } from '../../src/errors.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';
import { InMemoryUsageStore } from '../../src/usage/in-memory.ts';
import { countingModel } from '../support/counting-model.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

class NoteTool extends BaseConnectorTool {
  readonly name = 'note';
  readonly description = 'Takes a note';
  readonly parameters = z.object({ note: z.string() });
  async run(): Promise<ToolOutput> {
    return { text: 'noted', metadata: {} };
  }
}

const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
});

/** A run's markers, in history order: its local activities by type, its patches by id. */
async function markers(workflow: WorkflowHandle): Promise<{ local: string[]; patches: string[] }> {
  const { events } = await workflow.fetchHistory();
  const local: string[] = [];
  const patches: string[] = [];
  for (const event of events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    const read = (key: string): Record<string, unknown> => {
      const data = marker?.details?.[key]?.payloads?.[0]?.data;
      return data ? (JSON.parse(Buffer.from(data).toString()) as Record<string, unknown>) : {};
    };
    if (marker?.markerName === 'core_local_activity') local.push(String(read('data').activity_type));
    if (marker?.markerName === 'core_patch') patches.push(String(read('patch-data').id));
  }
  return { local, patches };
}

describe('the usage ledger and cost', () => {
  let t: TestWorker;
  const store = new InMemoryUsageStore();

  beforeAll(async () => {
    t = await startTestWorker(
      {
        counter: {
          llm: countingModel({ tool: 'note', modelId: 'openai:gpt-test' }),
          tools: [new NoteTool()],
        },
      },
      { usageStore: store },
    );
  });
  afterAll(async () => t?.stop());

  it('records every run once, by tenant, with tool calls, wall time and cost from a pricing table', async () => {
    const tenants = ['acme', 'globex', 'initech'];
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        t.agents.run('counter', `Task ${i} ${'x'.repeat(i * 40)}`, { tenant: tenants[i % 3] }),
      ),
    );
    const pricing = { 'gpt-test': { input: 2, output: 10 } };
    const report = await t.agents.usage({ groupBy: 'tenant', pricing });
    const sum = (list: typeof results, key: 'input_tokens' | 'output_tokens') =>
      list.reduce((n, r) => n + r.metadata.usage[key], 0);
    expect(report.totals.input_tokens).toBe(sum(results, 'input_tokens'));
    expect(report.totals.output_tokens).toBe(sum(results, 'output_tokens'));
    expect(report.totals.runs).toBe(6);
    expect(report.totals.tools).toEqual({ note: 6 });
    expect(report.totals.wall_ms).toBeGreaterThan(0);
    expect(report.totals.cost).toBeCloseTo(
      (sum(results, 'input_tokens') * 2 + sum(results, 'output_tokens') * 10) / 1_000_000,
      12,
    );
    for (const [i, tenant] of tenants.entries()) {
      const mine = results.filter((_, j) => j % 3 === i);
      const group = report.groups?.find((g) => g.key === tenant);
      expect(group?.input_tokens).toBe(sum(mine, 'input_tokens'));
      expect(group?.runs).toBe(2);
    }
    const acme = await t.agents.usage({ tenant: 'acme', since: '1h' });
    expect(acme.totals.total_tokens).toBe(report.groups?.find((g) => g.key === 'acme')?.total_tokens);
    expect((await t.agents.usage({ tenant: 'acme', until: '1h' })).totals.total_tokens).toBe(0);
  });

  it('has the answering step write the run line, and the end write it when the run stops without an answer', async () => {
    const answered = await t.agents.start('counter', 'Take a note', { tenant: 'lineco' });
    await answered.result();
    // One patch marker (each also writes a search attribute), and no local activity: the opening
    // step resolved the run, and the answering step wrote its line.
    expect(await markers(answered.workflow)).toEqual({ local: [], patches: ['opening-step'] });
    const lines = await t.agents.usage({ tenant: 'lineco' });
    expect(lines.totals).toMatchObject({ runs: 1, tools: { note: 1 } });
    expect(lines.totals.wall_ms).toBeGreaterThan(0);

    const stopped = await t.agents.start('counter', 'Take a note', { tenant: 'limitco', maxIterations: 1 });
    expect((await stopped.result()).metadata.stop_reason).toBe('max_iterations');
    expect((await markers(stopped.workflow)).local).toEqual(['recordRun']);
    expect((await t.agents.usage({ tenant: 'limitco' })).totals.runs).toBe(1);
  });

  it('counts a deep run once, its phases and its tokens in its metadata.usage', async () => {
    const result = await t.agents.run('counter', 'Plan, then do', { tenant: 'deepco', deep: {} });
    const report = await t.agents.usage({ tenant: 'deepco' });
    expect(report.totals.runs).toBe(1);
    expect(report.totals.tools).toEqual({ note: 1 });
    // Plan (one step) and execute (a tool call, then the answer).
    expect(result.metadata.usage.total_tokens).toBeGreaterThan(
      result.metadata.step_usage.reduce((n, u) => n + u.total_tokens, 0),
    );
    expect(report.totals.total_tokens).toBe(result.metadata.usage.total_tokens);
    expect(report.totals.input_tokens).toBe(result.metadata.usage.input_tokens);
  });
});

describe('quotas', () => {
  let t: TestWorker;
  const store = new InMemoryUsageStore();
  const spender = new ScriptedModel([
    { toolCalls: [{ name: 'note', args: { note: 'a' } }], usage: usage(20, 10) },
    { toolCalls: [{ name: 'note', args: { note: 'b' } }], usage: usage(20, 10) },
    { toolCalls: [{ name: 'note', args: { note: 'c' } }], usage: usage(20, 10) },
    { text: 'never reached', usage: usage(20, 10) },
  ]);

  beforeAll(async () => {
    t = await startTestWorker(
      {
        spender: { llm: spender, tools: [new NoteTool()], maxIterations: 10 },
        chatty: { llm: countingModel(), quotas: { perTenant: { maxRunsPerMinute: 1 } } },
        solo: {
          llm: new ScriptedModel([{ text: 'never', delayMs: 120_000 }, { text: 'second run answered' }]),
          quotas: { perTenant: { maxConcurrentRuns: 1 } },
        },
        starter: {
          llm: countingModel(),
          quotas: { perTenant: { maxRunsPerMinute: 2 }, tenants: { vip: { maxRunsPerMinute: 5 } } },
        },
      },
      { usageStore: store, quotas: { tenants: { thrifty: { maxTokensPerDay: 50 } } } },
    );
  });
  afterAll(async () => t?.stop());

  it('stops a run with quota once its tenant has spent the daily tokens, and refuses its next start with the reset time', async () => {
    const result = await t.agents.run('spender', 'Spend', { tenant: 'thrifty' });
    // 30 tokens a step: after two steps (60) the third is refused before it is sent.
    expect(result.metadata.stop_reason).toBe('quota');
    expect(result.metadata.iterations).toBe(3);
    expect(result.metadata.usage.total_tokens).toBe(60);
    expect(spender.remaining).toBe(2);
    expect((await t.agents.usage({ tenant: 'thrifty' })).totals.total_tokens).toBe(60);

    const refused = await t.agents.run('spender', 'Again', { tenant: 'thrifty' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QuotaExceededError);
    const error = refused as QuotaExceededError;
    expect(error.code).toBe('QUOTA_EXCEEDED');
    expect(error.quota).toBe('maxTokensPerDay');
    expect(error.tenant).toBe('thrifty');
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(error.resetsAt?.toISOString()).toBe(midnight.toISOString());
    expect(error.message).toContain('maxTokensPerDay');
  });

  it("refuses a start over an agent's maxRunsPerMinute, naming when it resets, while another tenant's override allows it", async () => {
    const before = Date.now();
    await t.agents.run('starter', 'one', { tenant: 'small' });
    await t.agents.run('starter', 'two', { tenant: 'small' });
    const refused = await t.agents.run('starter', 'three', { tenant: 'small' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QuotaExceededError);
    const error = refused as QuotaExceededError;
    expect(error.quota).toBe('maxRunsPerMinute');
    expect(error.limit).toBe(2);
    expect(error.agent).toBe('starter');
    expect(error.message).toContain('for agent "starter"');
    // Refused, not failed: the workflow completed with stop_reason quota, and the refusal in its result.
    const workflow = t.client.workflow.getHandle(error.workflowId!);
    expect((await workflow.describe()).status.name).toBe('COMPLETED');
    const raw = (await workflow.result()) as AgentRunOutput;
    expect(raw.metadata).toMatchObject({
      stop_reason: 'quota',
      iterations: 0,
      refused: { quota: 'maxRunsPerMinute', limit: 2, agent: 'starter', tenant: 'small' },
    });
    expect(raw.events?.events.at(-1)).toMatchObject({
      type: 'run_completed',
      payload: { stop_reason: 'quota' },
    });
    // A deep run refused at its first phase ends the same way.
    const deep = await t.agents
      .run('starter', 'four', { tenant: 'small', deep: {} })
      .catch((e: unknown) => e);
    expect(deep).toBeInstanceOf(QuotaExceededError);
    const deepRun = t.client.workflow.getHandle((deep as QuotaExceededError).workflowId!);
    expect((await deepRun.describe()).status.name).toBe('COMPLETED');
    // The first start leaves the window a minute after it was made.
    expect(error.resetsAt!.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect(error.resetsAt!.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    // A refused run starts nothing and is not counted; the agent's quota leaves the tenant's other agents alone.
    expect((await t.agents.usage({ tenant: 'small' })).totals.runs).toBe(2);
    expect((await t.agents.run('chatty', 'another agent', { tenant: 'small' })).metadata.stop_reason).toBe(
      'completed',
    );
    for (const prompt of ['a', 'b', 'c']) await t.agents.run('starter', prompt, { tenant: 'vip' });
    expect((await t.agents.usage({ tenant: 'vip' })).totals.runs).toBe(3);
  });

  it('refuses a chat turn over the quota with a QuotaExceededError, and the session goes on', async () => {
    const session = t.agents.chatSession('chatty', { tenant: 'talker' });
    expect((await session.send('hello')).metadata.stop_reason).toBe('completed');
    const refused = await session.send('again').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QuotaExceededError);
    expect(refused).toMatchObject({ quota: 'maxRunsPerMinute', tenant: 'talker', limit: 1 });
    const turns = await t.agents.usage({ tenant: 'talker' });
    expect(turns.totals.runs).toBe(1);
    expect(turns.totals.total_tokens).toBeGreaterThan(0);
  });

  it('a trigger whose run a quota refuses logs the refusal, and the run starts nothing', async () => {
    const secret = `whsec_${Buffer.from(randomUUID()).toString('base64')}`;
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'hook', type: 'api_key', token: secret });
    const logged: string[] = [];
    const handler = createTriggerHandler({
      client: t.agents,
      credentialStore,
      log: (line) => logged.push(line),
      triggers: [
        {
          name: 'hook',
          source: 'standard-webhooks',
          secretKey: 'hook',
          run: { agent: 'spender', prompt: (e) => `Handle ${e.type}`, tenant: 'thrifty' },
        },
      ],
    });
    const id = `msg_${randomUUID()}`;
    const body = JSON.stringify({ type: 'invoice.paid' });
    const now = new Date();
    const response = await handler(
      new Request('http://hooks.local/hook', {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign(id, now, body),
        },
      }),
    );
    expect(await response.json()).toEqual({ started: `trigger-hook-${id}` });
    // `thrifty` spent its tokens for today in the first test: the run is refused at its start.
    await expect
      .poll(() => logged.find((line) => line.includes('refused')), { timeout: 15_000 })
      .toMatch(
        /^trigger hook: event .* refused, nothing started: Tenant "thrifty" reached its quota maxTokensPerDay \(50\); it resets at /,
      );
    expect(spender.remaining).toBe(2);
  });

  it('frees the slot of a run that was terminated, when the next run of its tenant asks', async () => {
    const first = await t.agents.start('solo', 'Take long', { tenant: 'one' });
    await expect
      .poll(async () => (await first.listEvents()).some((e) => e.type === 'step_started'), {
        timeout: 10_000,
      })
      .toBe(true);
    // Terminated: it never frees its slot itself.
    await first.workflow.terminate('test');
    const second = await t.agents.run('solo', 'Go', { tenant: 'one' });
    expect(second.output).toBe('second run answered');
  });
});

describe('token usage as an OpenTelemetry metric', () => {
  class CollectingReader extends MetricReader {
    protected override async onForceFlush(): Promise<void> {}
    protected override async onShutdown(): Promise<void> {}
  }

  it('records gen_ai.client.token.usage per model step, by token type, with the GenAI attributes', async () => {
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const t = await startTestWorker(
      {
        counter: {
          llm: countingModel({ tool: 'note', modelId: 'openai:gpt-test' }),
          tools: [new NoteTool()],
        },
      },
      { telemetry: { meterProvider } },
    );
    try {
      const result = await t.agents.run('counter', 'Count me', { tenant: 'acme' });
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((m) => m.descriptor.name === 'gen_ai.client.token.usage');
      expect(metric?.descriptor.unit).toBe('{token}');
      expect(metric?.dataPointType).toBe(DataPointType.HISTOGRAM);
      const points = (metric?.dataPoints ?? []) as Array<{
        attributes: Record<string, unknown>;
        value: { sum?: number; count: number };
      }>;
      const byType = (type: string) => points.find((p) => p.attributes['gen_ai.token.type'] === type);
      for (const [type, tokens] of [
        ['input', result.metadata.usage.input_tokens],
        ['output', result.metadata.usage.output_tokens],
      ] as const) {
        expect(byType(type)?.value).toMatchObject({ sum: tokens, count: 2 });
        expect(byType(type)?.attributes).toMatchObject({
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': 'openai',
          'gen_ai.request.model': 'gpt-test',
        });
      }
    } finally {
      await t.stop();
      await meterProvider.shutdown();
    }
  });
});
