/**
 * Benchmark (not a test): fair scheduling of tenants on one busy fleet. A worker with 2 workflow
 * and 2 activity slots serves runs of one model step (the model takes MODEL_MS). Tenant B's 5 runs
 * are timed (start to result) on an idle fleet, then right after tenant A started 300 runs, twice:
 * with each run's tenant as Temporal's fairness key (the default), and without fairness keys
 * (`fairness: { disabled: true }`: first come, first served). All on the embedded server, whose
 * matching service has fairness on, in the same process. Writes bench/results/fairness.json and .md.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { AgentClient } from '../src/client/agent-client.ts';
import type { ModelAdapter, ModelResponse } from '../src/models/model-adapter.ts';
import { startBenchWorker } from './embedded-worker.ts';
import { writeResults } from './write-results.ts';

const A_RUNS = Number(process.env.BENCH_FAIRNESS_A_RUNS ?? 300);
const B_RUNS = 5;
const MODEL_MS = 30;
Runtime.install({ logger: new DefaultLogger('ERROR') });

const model: ModelAdapter = {
  specificationVersion: 'toolkit-agent.model.v1',
  modelId: 'steady',
  async generate(): Promise<ModelResponse> {
    await new Promise((resolve) => setTimeout(resolve, MODEL_MS));
    return { text: 'done', toolCalls: [] };
  },
};

const bench = await startBenchWorker(
  { work: { llm: model, liveText: false } },
  {
    maxConcurrentWorkflowTaskExecutions: 2,
    maxConcurrentActivityTaskExecutions: 2,
    maxConcurrentLocalActivityExecutions: 2,
  },
);
const fair = bench.agents;
const unfair = new AgentClient({
  client: bench.client,
  taskQueue: bench.taskQueue,
  fairness: { disabled: true },
});

/** B's runs, started together: each one's time from start to result, in ms. */
async function timeB(agents: AgentClient, label: string): Promise<number[]> {
  return Promise.all(
    Array.from({ length: B_RUNS }, async (_, i) => {
      const started = performance.now();
      const handle = await agents.start('work', `B ${label} ${i}`, { tenant: 'tenant-b' });
      await handle.result();
      return performance.now() - started;
    }),
  );
}

/** A's burst of runs, then B's runs right after; waits until A's runs are done too. */
async function withBacklog(agents: AgentClient, label: string): Promise<{ b: number[]; aDrainMs: number }> {
  const started = performance.now();
  const burst = await Promise.all(
    Array.from({ length: A_RUNS }, (_, i) => agents.start('work', `A ${label} ${i}`, { tenant: 'tenant-a' })),
  );
  const b = await timeB(agents, label);
  await Promise.all(burst.map((handle) => handle.result()));
  return { b, aDrainMs: performance.now() - started };
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
const max = (values: number[]) => Math.max(...values);

try {
  await timeB(fair, 'warm-up');
  const idle = await timeB(fair, 'idle');
  const withFairness = await withBacklog(fair, 'fair');
  const withoutFairness = await withBacklog(unfair, 'unfair');
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    a_runs: A_RUNS,
    b_runs: B_RUNS,
    model_ms: MODEL_MS,
    idle_b_median_ms: median(idle),
    idle_b_max_ms: max(idle),
    fair_b_median_ms: median(withFairness.b),
    fair_b_max_ms: max(withFairness.b),
    unfair_b_median_ms: median(withoutFairness.b),
    unfair_b_max_ms: max(withoutFairness.b),
    fair_ratio: median(withFairness.b) / median(idle),
    unfair_ratio: median(withoutFairness.b) / median(idle),
    fair_a_drain_ms: withFairness.aDrainMs,
    unfair_a_drain_ms: withoutFairness.aDrainMs,
  };
  const f = (n: number) => n.toFixed(0);
  const r = (n: number) => n.toFixed(2);
  const table = [
    '# Fair scheduling: tenant B on a fleet busy with tenant A',
    '',
    `Measured ${results.date} on Node ${results.node}, embedded server (fairness on), one worker with 2 workflow`,
    `and 2 activity slots; each run is one model step of ${MODEL_MS} ms. Tenant A starts ${A_RUNS} runs, then tenant B`,
    `starts ${B_RUNS}; B's time from start to result, against B alone on the idle fleet (same process, same server).`,
    '',
    "| B's runs | median | slowest | median against idle |",
    '| --- | --- | --- | --- |',
    `| idle fleet | ${f(results.idle_b_median_ms)} ms | ${f(results.idle_b_max_ms)} ms | 1.00× |`,
    `| behind A's backlog, with fairness keys | ${f(results.fair_b_median_ms)} ms | ${f(results.fair_b_max_ms)} ms | ${r(results.fair_ratio)}× |`,
    `| behind A's backlog, without fairness keys | ${f(results.unfair_b_median_ms)} ms | ${f(results.unfair_b_max_ms)} ms | ${r(results.unfair_ratio)}× |`,
    '',
    `A's ${A_RUNS} runs took ${f(results.fair_a_drain_ms)} ms with fairness and ${f(results.unfair_a_drain_ms)} ms without.`,
    '',
  ].join('\n');
  await writeResults('fairness', results, table);
} finally {
  await bench.stop();
}
