/**
 * Benchmark (not a test): what durability costs.
 * 1. The same 4-iteration run (instant model, no-op tool) on the embedded Temporal server, and as a
 *    plain in-process loop over the same model, tool and memory store; per-iteration overhead and ratio;
 *    and, taken in turns on the same server, on the workflow code with `resolveRun` as a plain
 *    activity before the first model step, as before #13 (bench/before/), for what starting a run
 *    costs now (its opening step resolves it and takes the first model step in one activity).
 * 2. 200 concurrent runs with a simulated 200 ms model: wall time against the ideal.
 * Writes bench/results/durable-overhead.json and .md.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { AgentClient } from '../src/client/agent-client.ts';
import type { Message } from '../src/common/messages.ts';
import { EmbeddedTemporalServer } from '../src/embedded/dev-server.ts';
import { InMemoryMemoryStore } from '../src/memory/in-memory.ts';
import type { ModelAdapter } from '../src/models/model-adapter.ts';
import { SecretSet } from '../src/redaction.ts';
import type { ToolContext } from '../src/tools/connector-base.ts';
import { createAgentWorker } from '../src/worker.ts';
import { bundleWithResolveRunAsActivity } from './before/bundle.ts';
import { LoopModel, NoopTool } from './loop-agent.ts';
import { writeResults } from './write-results.ts';

const ITERATIONS = 4;
const SEQUENTIAL_RUNS = 30;
const STOCK_RUNS = 10;
const CONCURRENT_RUNS = 200;
const SLOW_MODEL_MS = 200;
const CONCURRENT_ITERATIONS = 2;

Runtime.install({ logger: new DefaultLogger('ERROR') });

/** The same loop without Temporal: model, schema check, tool, memory store. */
async function inProcessRun(model: ModelAdapter, tool: NoopTool, memory: InMemoryMemoryStore): Promise<void> {
  const id = randomUUID();
  const schemas = [tool.schema()];
  await memory.append(id, 0, [{ role: 'user', content: 'go' }]);
  let seq = 1;
  for (let i = 0; i < ITERATIONS; i++) {
    const reply = await model.generate({ messages: await memory.read(id, { before: seq }), tools: schemas });
    await memory.append(id, seq++, [{ role: 'assistant', content: reply.text, toolCalls: reply.toolCalls }]);
    if (reply.toolCalls.length === 0) return;
    for (const call of reply.toolCalls) {
      const args = tool.parameters.parse(call.args) as Record<string, unknown>;
      const context: ToolContext = {
        agent: 'instant',
        workflowId: id,
        runId: id,
        callId: call.id,
        secrets: new SecretSet(),
        signal: new AbortController().signal,
        heartbeat: () => undefined,
      };
      const output = await tool.run(context, args);
      const message: Message = {
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content: output.text,
      };
      await memory.append(id, seq++, [message]);
    }
  }
}

function stats(samples: number[]): { mean: number; median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { mean: samples.reduce((a, b) => a + b, 0) / samples.length, median: at(0.5), p95: at(0.95) };
}

async function timed<T>(work: () => Promise<T>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

interface Bench {
  agents: AgentClient;
  /** The same agents on workflow code with `resolveRun` as a plain activity (as before #13). */
  before?: AgentClient;
  memory: InMemoryMemoryStore;
  tool: NoopTool;
  close(): Promise<void>;
}

/**
 * An embedded server with its own worker; `dynamicConfig` overrides the embedded defaults. With
 * `beforeBundle`, a second worker on the same server runs that workflow code on a task queue of its own.
 */
async function startBench(
  dynamicConfig: Record<string, unknown> = {},
  beforeBundle?: { code: string },
): Promise<Bench> {
  const server = await EmbeddedTemporalServer.start({ dynamicConfig });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  const memory = new InMemoryMemoryStore();
  const tool = new NoopTool();
  const startWorker = async (workflowBundle?: { code: string }) => {
    const taskQueue = `bench-${randomUUID()}`;
    const worker = await createAgentWorker({
      connection: nativeConnection,
      taskQueue,
      memoryStore: memory,
      agents: {
        instant: { llm: new LoopModel(ITERATIONS), tools: [tool] },
        slow: { llm: new LoopModel(CONCURRENT_ITERATIONS, SLOW_MODEL_MS), tools: [tool] },
      },
      workerOptions: { maxConcurrentActivityTaskExecutions: 1000, maxCachedWorkflows: 1000 },
      ...(workflowBundle ? { workflowBundle } : {}),
    });
    const running = worker.run();
    return {
      agents: new AgentClient({ client, taskQueue }),
      stop: async () => {
        worker.shutdown();
        await running;
      },
    };
  };
  const current = await startWorker();
  const before = beforeBundle ? await startWorker(beforeBundle) : undefined;
  return {
    agents: current.agents,
    ...(before ? { before: before.agents } : {}),
    memory,
    tool,
    async close() {
      await current.stop();
      await before?.stop();
      await connection.close();
      await nativeConnection.close();
      await server.close();
    },
  };
}

/** Median and p95 of `runs` sequential 4-iteration runs on Temporal, after a warm-up. */
async function sequentialRuns(agents: AgentClient, runs: number): Promise<ReturnType<typeof stats>> {
  for (let i = 0; i < 3; i++) await agents.run('instant', 'go');
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timed(() => agents.run('instant', 'go')));
  return stats(samples);
}

/** Sequential runs of the current and the earlier workflow code, taken in turns so noise hits both alike. */
async function alternatingRuns(current: AgentClient, before: AgentClient, runs: number) {
  for (let i = 0; i < 3; i++) await Promise.all([current.run('instant', 'go'), before.run('instant', 'go')]);
  const samples = { current: [] as number[], before: [] as number[] };
  for (let i = 0; i < runs; i++) {
    samples.current.push(await timed(() => current.run('instant', 'go')));
    samples.before.push(await timed(() => before.run('instant', 'go')));
  }
  return { current: stats(samples.current), before: stats(samples.before) };
}

// Baseline 1: the same loop in process, no Temporal.
const memory = new InMemoryMemoryStore();
const plainTool = new NoopTool();
for (let i = 0; i < 3; i++) await inProcessRun(new LoopModel(ITERATIONS), plainTool, memory);
const plainSamples: number[] = [];
for (let i = 0; i < SEQUENTIAL_RUNS; i++) {
  plainSamples.push(await timed(() => inProcessRun(new LoopModel(ITERATIONS), plainTool, memory)));
}
const p = stats(plainSamples);

// Baseline 2: a dev server with the stock task-queue read rate (what `temporal server start-dev` does).
const stock = await startBench({
  'history.transferProcessorMaxPollRPS': 20,
  'history.timerProcessorMaxPollRPS': 20,
  'history.visibilityProcessorMaxPollRPS': 20,
});
const stockStats = await sequentialRuns(stock.agents, STOCK_RUNS).finally(() => stock.close());

const bench = await startBench({}, await bundleWithResolveRunAsActivity());
try {
  const { current: d, before: b } = await alternatingRuns(bench.agents, bench.before!, SEQUENTIAL_RUNS);
  const overheadPerIteration = (d.median - p.median) / ITERATIONS;

  const idealMs = CONCURRENT_ITERATIONS * SLOW_MODEL_MS;
  const concurrentWall = await timed(() =>
    Promise.all(Array.from({ length: CONCURRENT_RUNS }, () => bench.agents.run('slow', 'go'))),
  );

  const results = {
    date: new Date().toISOString(),
    node: process.version,
    sequential: {
      iterations: ITERATIONS,
      runs: SEQUENTIAL_RUNS,
      durable_ms: d,
      in_process_ms: p,
      resolve_run_as_activity_ms: b,
      ratio_local_resolve_run_to_before: d.median / b.median,
      stock_dev_server_ms: stockStats,
      overhead_per_iteration_ms: overheadPerIteration,
      stock_overhead_per_iteration_ms: (stockStats.median - p.median) / ITERATIONS,
      ratio_durable_to_in_process: d.median / p.median,
      target_overhead_per_iteration_ms: 10,
    },
    concurrent: {
      runs: CONCURRENT_RUNS,
      iterations: CONCURRENT_ITERATIONS,
      model_delay_ms: SLOW_MODEL_MS,
      wall_ms: concurrentWall,
      ideal_ms: idealMs,
      ratio_to_ideal: concurrentWall / idealMs,
    },
  };
  const f = (n: number) => n.toFixed(2);
  const table = [
    '# Durable overhead',
    '',
    `Measured ${results.date} on Node ${results.node}, embedded Temporal dev server, one worker in process.`,
    'The in-process loop, the earlier workflow code and the stock dev server are baselines measured in the same run.',
    '',
    '| measure | value |',
    '| --- | --- |',
    `| ${ITERATIONS}-iteration run on Temporal, median | ${f(d.median)} ms (p95 ${f(d.p95)}) |`,
    `| same loop in process, median | ${f(p.median)} ms (p95 ${f(p.p95)}) |`,
    `| overhead per iteration | ${f(overheadPerIteration)} ms (target ≤ 10 ms) |`,
    `| ratio durable / in process | ${f(d.median / p.median)}× |`,
    `| same run, \`resolveRun\` as a plain activity (before #13), median | ${f(b.median)} ms (p95 ${f(b.p95)}) |`,
    `| today's start (the opening step) / \`resolveRun\` as a plain activity | ${f(d.median / b.median)}× (${f(b.median - d.median)} ms less per run) |`,
    `| same run on a stock dev server (20 task-queue reads/s), median | ${f(stockStats.median)} ms |`,
    `| overhead per iteration, stock dev server | ${f((stockStats.median - p.median) / ITERATIONS)} ms |`,
    `| embedded server speed-up over stock | ${f(stockStats.median / d.median)}× |`,
    `| ${CONCURRENT_RUNS} concurrent runs, ${CONCURRENT_ITERATIONS} iterations, ${SLOW_MODEL_MS} ms model | ${f(concurrentWall)} ms wall |`,
    `| ideal (all in parallel) | ${idealMs} ms |`,
    `| ratio to ideal | ${f(concurrentWall / idealMs)}× |`,
    '',
  ].join('\n');
  await writeResults('durable-overhead', results, table);
} finally {
  await bench.close();
}
