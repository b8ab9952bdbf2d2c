import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { CustomAPITool } from '../../src/tools/http/custom-api.ts';
import { createAgentWorker, type AgentDefinition } from '../../src/worker.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { collect } from './helpers.ts';

/** The provider's limit: at most this many requests in any 1-second window; above it, 429. */
const PROVIDER_PER_SECOND = 5;
const CALLS_PER_RUN = 25;
/**
 * The stand-in's bucket may go this many tokens below empty. Temporal's task-queue limiter is a
 * token bucket too, but one that holds `perSecond + 1`: when a backlog first forms it dispatched 6
 * at once, or 7 within 200 ms, in our runs; after that one every 200 ms. So a call may come one
 * token early (Temporal's extra one) and one more of jitter (dispatch and HTTP on a loaded machine).
 */
const EARLY_TOKENS = 2;

/** The provider's limit for one account as a token bucket (how providers state "5 a second"): 5 at most at once, one more each 200 ms. */
class ProviderBucket {
  #tokens = PROVIDER_PER_SECOND;
  #refilledAt = Date.now();
  /** Arrival times of the requests let through. */
  readonly accepted: number[] = [];
  refused = 0;

  /** Whether a request arriving at `now` is let through (else the provider answers 429). */
  take(now: number): boolean {
    this.#tokens = Math.min(
      PROVIDER_PER_SECOND,
      this.#tokens + ((now - this.#refilledAt) / 1000) * PROVIDER_PER_SECOND,
    );
    this.#refilledAt = now;
    if (this.#tokens < 1 - EARLY_TOKENS) {
      this.refused += 1;
      return false;
    }
    this.#tokens -= 1;
    this.accepted.push(now);
    return true;
  }
}

/** A model that asks for `calls` calls of the provider in its first step and answers once it has their results. */
function fanOutModel(calls: number, path: string): ScriptedModel {
  const step = (request: ModelRequest): ScriptedStep =>
    request.messages.some((message) => message.role === 'tool')
      ? { text: 'All done.' }
      : {
          toolCalls: Array.from({ length: calls }, (_, i) => ({
            name: 'custom_api',
            args: { method: 'GET', path: calls > 1 ? `${path}/${i}` : path },
          })),
        };
  return new ScriptedModel(Array.from({ length: 50 }, () => step));
}

describe('provider rate limits: enforced by Temporal across workers; long Retry-After waits on a timer', () => {
  let provider: RecordingServer;
  /** Arrival times of the requests the stand-in let through, and how many it refused. */
  const bucket = new ProviderBucket();
  const accepted = bucket.accepted;
  let slowCalls = 0;
  const credentialStore = new InMemoryCredentialStore();
  const memoryStore = new InMemoryMemoryStore();
  const taskQueue = `test-rate-${randomUUID()}`;
  const workers: Worker[] = [];
  const runs: Array<Promise<void>> = [];
  const connections: Array<{ close(): Promise<void> }> = [];
  let agents: AgentClient;
  /** Starts one worker of the fleet; `where` says where it declares the provider's limit. */
  let startWorker: (where: 'worker' | 'agent') => Promise<void>;

  beforeAll(async () => {
    provider = await startRecordingServer((request, response) => {
      if (request.path === '/api/slow') {
        slowCalls += 1;
        // The first call is told to come back in 12 s (past the 10 s a call waits in its activity);
        // the next one is answered.
        if (slowCalls === 1) return json(response, 429, { error: 'slow down' }, { 'retry-after': '12' });
        return json(response, 200, { ok: true });
      }
      if (request.path === '/api/deadline') {
        return json(response, 429, { error: 'slow down' }, { 'retry-after': '30' });
      }
      if (!bucket.take(request.receivedAt))
        return json(response, 429, { error: 'rate limited' }, { 'retry-after': '1' });
      json(response, 200, { ok: true });
    });
    await credentialStore.put({
      name: 'provider',
      type: 'bearer',
      token: 'tok-provider',
      metadata: { base_url: `${provider.url}/api` },
    });
    const address = inject('temporalAddress');
    const definitions = (): Record<string, AgentDefinition> => ({
      fanout: {
        llm: fanOutModel(CALLS_PER_RUN, '/item'),
        tools: [new CustomAPITool({ credentialKey: 'provider' })],
        credentialStore,
        maxIterations: 3,
      },
      slow: {
        llm: fanOutModel(1, '/slow'),
        tools: [new CustomAPITool({ credentialKey: 'provider' })],
        credentialStore,
      },
      deadline: {
        llm: fanOutModel(1, '/deadline'),
        tools: [new CustomAPITool({ credentialKey: 'provider' })],
        credentialStore,
      },
    });
    startWorker = async (where) => {
      const connection = await NativeConnection.connect({ address });
      connections.push(connection);
      const agentDefinitions = definitions();
      if (where === 'agent')
        agentDefinitions.fanout!.rateLimits = { provider: { perSecond: PROVIDER_PER_SECOND } };
      const worker = await createAgentWorker({
        connection,
        taskQueue,
        agents: agentDefinitions,
        memoryStore,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        ...(where === 'worker' ? { rateLimits: { provider: { perSecond: PROVIDER_PER_SECOND } } } : {}),
      });
      workers.push(worker);
      runs.push(worker.run());
    };
    // Two workers of one fleet, both declaring the provider's limit (one on the worker, one on an agent).
    await startWorker('worker');
    await startWorker('agent');
    const connection = await Connection.connect({ address });
    connections.push(connection);
    agents = new AgentClient({ client: new Client({ connection }), taskQueue });
  });

  afterAll(async () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await Promise.allSettled(runs);
    for (const connection of connections) await connection.close();
    await provider?.close();
  });

  it('100 calls from 4 parallel runs on 2 workers: Temporal dispatches them 5 a second, and no 429 reaches a run', async () => {
    const handles = await Promise.all(
      Array.from({ length: 4 }, (_, i) => agents.start('fanout', `Fetch batch ${i}`)),
    );
    const results = await Promise.all(handles.map((handle) => handle.result()));
    for (const result of results) expect(result.metadata.stop_reason).toBe('completed');
    const answers = (await Promise.all(handles.map((handle) => memoryStore.read(handle.workflowId))))
      .flat()
      .filter((message) => message.role === 'tool');
    expect(answers).toHaveLength(100);
    expect(answers.filter((message) => message.role === 'tool' && message.isError)).toEqual([]);
    expect(results.reduce((sum, result) => sum + (result.metadata.tool_calls ?? 0), 0)).toBe(100);
    // What Temporal promises: the server handed the calls out no faster than 5 a second, past the
    // first burst its limiter allows (perSecond + 1), by the start times it recorded.
    const histories = await Promise.all(handles.map((handle) => handle.workflow.fetchHistory()));
    const dispatched = histories.flatMap((history) => {
      const events = history.events ?? [];
      const limited = new Set(
        events
          .filter((event) =>
            event.activityTaskScheduledEventAttributes?.taskQueue?.name?.endsWith('@rate-limit:provider'),
          )
          .map((event) => String(event.eventId)),
      );
      return events
        .filter((event) => limited.has(String(event.activityTaskStartedEventAttributes?.scheduledEventId)))
        .map(
          (event) => Number(String(event.eventTime?.seconds)) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6,
        );
    });
    expect(dispatched).toHaveLength(100);
    const dispatchSeconds = (Math.max(...dispatched) - Math.min(...dispatched)) / 1000;
    expect((dispatched.length - (PROVIDER_PER_SECOND + 1)) / (dispatchSeconds + 0.1)).toBeLessThanOrEqual(
      PROVIDER_PER_SECOND,
    );
    // What reaches the provider can bunch on a loaded machine (a worker that was starved of CPU starts
    // two dispatched calls together): a call it refused waited out its Retry-After and went through,
    // so every call succeeded and no run saw a 429 (checked above).
    expect(accepted).toHaveLength(100);
    // Past the first burst (perSecond + 1 at most), the calls came no faster than 5 a second overall.
    const first = accepted[0]!;
    const seconds = (accepted.at(-1)! - first) / 1000;
    // (The first and last arrivals may each be some ms off their dispatch: 100 ms are allowed for that,
    // and 5% for a loaded machine that delays the first arrival more than the last.)
    expect((accepted.length - (PROVIDER_PER_SECOND + 1)) / (seconds + 0.1)).toBeLessThanOrEqual(
      PROVIDER_PER_SECOND * 1.05,
    );
    // For the record (a loaded machine delays some dispatches, bunching the next ones by some ms).
    const busiest = Math.max(
      ...accepted.map((start) => accepted.filter((at) => at >= start && at < start + 1000).length),
    );
    const burst = accepted.filter((at) => at < first + 100).length;
    console.log(
      `rate limit: 100 calls in ${seconds.toFixed(1)} s (dispatched in ${dispatchSeconds.toFixed(1)} s); ` +
        `first burst ${burst} within 100 ms; busiest 1-second window ${busiest}; refused by the provider ${bucket.refused}`,
    );
    // The calls ran on the rate-limited queue, not the worker's own.
    const history = await handles[0]!.workflow.fetchHistory();
    const queues = new Set(
      history.events
        ?.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'invokeTool')
        .map((event) => event.activityTaskScheduledEventAttributes?.taskQueue?.name),
    );
    expect([...queues]).toEqual([`${taskQueue}@rate-limit:provider`]);
  });

  it('waits out a 12 s Retry-After on a durable timer, holding no activity, across a fleet restart; the model never hears of it', async () => {
    const handle = await agents.start('slow', 'Fetch the slow thing');
    const eventsDone = collect(handle.events());
    // While it waits: a timer is pending and no activity attempt is.
    let sawWait = false;
    for (let i = 0; i < 200 && !sawWait; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const history = await handle.workflow.fetchHistory();
      sawWait = Boolean(history.events?.some((event) => event.timerStartedEventAttributes));
    }
    expect(sawWait).toBe(true);
    const during = await handle.workflow.describe();
    expect(during.raw.pendingActivities ?? []).toHaveLength(0);
    // The wait is Temporal's, not a worker's: the whole fleet stops and a new worker finishes the run.
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await Promise.allSettled(runs);
    await startWorker('worker');

    const result = await handle.result();
    expect(result.metadata.stop_reason).toBe('completed');
    expect(slowCalls).toBe(2);
    const history = await handle.workflow.fetchHistory();
    const timers = history.events?.filter((event) => event.timerStartedEventAttributes) ?? [];
    expect(timers).toHaveLength(1);
    expect(Number(timers[0]!.timerStartedEventAttributes!.startToFireTimeout!.seconds)).toBe(12);
    expect(history.events?.some((event) => event.timerFiredEventAttributes)).toBe(true);
    // The call's first attempt completed (no attempt was held open for 12 s, and no retry was spent).
    const events = await eventsDone;
    const waiting = events.find((event) => event.type === 'tool_waiting');
    expect(waiting?.payload).toMatchObject({
      tool: 'custom_api',
      reason: 'rate_limit',
      retry_after_ms: 12_000,
    });
    expect(events.map((event) => event.type)).not.toContain('tool_failed');
    // The model saw the answer of the second call only.
    const toolResults = (await memoryStore.read(handle.workflowId)).filter(
      (message) => message.role === 'tool',
    );
    expect(toolResults).toHaveLength(1);
    expect(toolResults[0]!.content).toContain('"ok":true');
  });

  it('tells the model of the rate limit when waiting would pass the run deadline', async () => {
    const handle = await agents.start('deadline', 'Fetch it', { timeoutMs: 8_000 });
    const events = await collect(handle.events());
    const result = await handle.result();
    expect(result.metadata.stop_reason).toBe('completed');
    const failed = events.find((event) => event.type === 'tool_failed');
    expect(failed?.payload).toMatchObject({ error_type: 'RateLimitError' });
    expect(String(failed?.payload.error)).toMatch(/would pass the run's deadline/);
    expect(events.map((event) => event.type)).not.toContain('tool_waiting');
  });
});

describe('provider rate limits per account: each tenant with its own record is an account of its own', () => {
  let provider: RecordingServer;
  /** The provider's limit, per account (the bearer token a request carries). */
  const buckets = new Map<string, ProviderBucket>();
  const credentialStore = new InMemoryCredentialStore();
  const taskQueue = `test-rate-account-${randomUUID()}`;
  let worker: Worker;
  let running: Promise<void>;
  const connections: Array<{ close(): Promise<void> }> = [];
  let agents: AgentClient;

  beforeAll(async () => {
    provider = await startRecordingServer((request, response) => {
      const token = String(request.headers.authorization);
      const bucket = buckets.get(token) ?? new ProviderBucket();
      buckets.set(token, bucket);
      if (!bucket.take(request.receivedAt))
        return json(response, 429, { error: 'rate limited' }, { 'retry-after': '1' });
      json(response, 200, { ok: true });
    });
    const record = (token: string) => ({
      name: 'provider',
      type: 'bearer' as const,
      token,
      metadata: { base_url: `${provider.url}/api` },
    });
    await credentialStore.put(record('tok-shared'));
    await credentialStore.put(record('tok-acme'), { tenant: 'acme' });
    await credentialStore.put(record('tok-globex'), { tenant: 'globex' });
    const address = inject('temporalAddress');
    const connection = await NativeConnection.connect({ address });
    connections.push(connection);
    worker = await createAgentWorker({
      connection,
      taskQueue,
      agents: {
        fanout: {
          llm: fanOutModel(CALLS_PER_RUN, '/item'),
          tools: [new CustomAPITool({ credentialKey: 'provider' })],
          credentialStore,
          maxIterations: 3,
        },
      },
      memoryStore: new InMemoryMemoryStore(),
      workflowBundle: { codePath: inject('workflowBundlePath') },
      rateLimits: { provider: { perSecond: PROVIDER_PER_SECOND } },
    });
    running = worker.run();
    const clientConnection = await Connection.connect({ address });
    connections.push(clientConnection);
    // acme's weight would scale a fairness key's rate: an account's rate must not follow it.
    agents = new AgentClient({
      client: new Client({ connection: clientConnection }),
      taskQueue,
      fairness: { weights: { acme: 3 } },
    });
  });

  afterAll(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running;
    for (const connection of connections) await connection.close();
    await provider?.close();
  });

  /** How long two runs of 25 calls each take, started at once for these tenants. */
  async function twoRuns(tenants: Array<string | undefined>): Promise<number> {
    const startedAt = Date.now();
    const handles = await Promise.all(
      tenants.map((tenant, i) =>
        agents.start('fanout', `Fetch batch ${i}`, tenant === undefined ? {} : { tenant }),
      ),
    );
    const results = await Promise.all(handles.map((handle) => handle.result()));
    for (const result of results) expect(result.metadata.stop_reason).toBe('completed');
    return Date.now() - startedAt;
  }

  it('two tenants with their own records each get the whole rate, while runs on the shared record share one', async () => {
    const shared = await twoRuns([undefined, undefined]);
    const own = await twoRuns(['acme', 'globex']);
    // No account was sent more than its rate: the provider refused nothing.
    const accounts = [...buckets].map(([token, bucket]) => [token, bucket.accepted.length, bucket.refused]);
    expect(accounts.sort()).toEqual([
      ['Bearer tok-acme', 25, 0],
      ['Bearer tok-globex', 25, 0],
      ['Bearer tok-shared', 50, 0],
    ]);
    // 50 calls at 5 a second on one account, against 25 on each of two at once: about half the time.
    console.log(`rate limit per account: shared record ${shared} ms, two tenants' records ${own} ms`);
    expect(own).toBeLessThan(shared * 0.75);
  });
});
