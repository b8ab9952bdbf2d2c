/**
 * Benchmark (not a test): what an input guardrail adds to a run. The same 2-step run (a model that
 * takes 50 ms a step, a no-op tool) with no guardrail, with a blocking input check and with a
 * parallel one, each check taking 50 ms (a small classifier model), on the embedded Temporal server;
 * the three taken in turns so noise hits them alike. A blocking check runs before the first model
 * step (its activity and its 50 ms are added); a parallel one runs beside it. Writes
 * bench/results/guardrails.json and .md.
 */
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { AgentClient } from '../src/client/agent-client.ts';
import { EmbeddedTemporalServer } from '../src/embedded/dev-server.ts';
import type { InputGuardrail } from '../src/guardrails/types.ts';
import { InMemoryMemoryStore } from '../src/memory/in-memory.ts';
import { createAgentWorker } from '../src/worker.ts';
import { LoopModel, NoopTool } from './loop-agent.ts';
import { writeResults } from './write-results.ts';

const ITERATIONS = 2;
const MODEL_MS = 50;
const CHECK_MS = 50;
const RUNS = 10;

Runtime.install({ logger: new DefaultLogger('ERROR') });

const check = (mode: 'blocking' | 'parallel'): InputGuardrail => ({
  name: `classifier_${mode}`,
  mode,
  check: async () => {
    await new Promise((resolve) => setTimeout(resolve, CHECK_MS));
    return undefined;
  },
});

const server = await EmbeddedTemporalServer.start();
const nativeConnection = await NativeConnection.connect({ address: server.address });
const connection = await Connection.connect({ address: server.address });
const taskQueue = `bench-${randomUUID()}`;
const tool = new NoopTool();
const worker = await createAgentWorker({
  connection: nativeConnection,
  taskQueue,
  memoryStore: new InMemoryMemoryStore(),
  agents: {
    none: { llm: new LoopModel(ITERATIONS, MODEL_MS), tools: [tool] },
    blocking: {
      llm: new LoopModel(ITERATIONS, MODEL_MS),
      tools: [tool],
      guardrails: { input: [check('blocking')] },
    },
    parallel: {
      llm: new LoopModel(ITERATIONS, MODEL_MS),
      tools: [tool],
      guardrails: { input: [check('parallel')] },
    },
  },
});
const running = worker.run();
const agents = new AgentClient({ client: new Client({ connection }), taskQueue });

const kinds = ['none', 'blocking', 'parallel'] as const;
const samples: Record<(typeof kinds)[number], number[]> = { none: [], blocking: [], parallel: [] };
try {
  for (const kind of kinds) for (let i = 0; i < 3; i++) await agents.run(kind, 'go');
  for (let i = 0; i < RUNS; i++) {
    for (const kind of kinds) {
      const start = performance.now();
      await agents.run(kind, 'go');
      samples[kind].push(performance.now() - start);
    }
  }
} finally {
  worker.shutdown();
  await running;
  await connection.close();
  await nativeConnection.close();
  await server.close();
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const none = median(samples.none);
const results = Object.fromEntries(
  kinds.map((kind) => [
    kind,
    { median_ms: Math.round(median(samples[kind])), ratio: median(samples[kind]) / none },
  ]),
);
const rows = kinds.map(
  (kind) =>
    `| ${kind === 'none' ? 'no guardrail' : `a ${kind} input check`} | ${results[kind]!.median_ms} ms | ${results[kind]!.ratio.toFixed(2)} |`,
);
const table = [
  `Input guardrails: a ${ITERATIONS}-step run (model ${MODEL_MS} ms a step), the check taking ${CHECK_MS} ms; median of ${RUNS} runs each, embedded server.`,
  '',
  '| run | median | ratio to none |',
  '| --- | --- | --- |',
  ...rows,
  '',
].join('\n');
await writeResults(
  'guardrails',
  { iterations: ITERATIONS, model_ms: MODEL_MS, check_ms: CHECK_MS, runs: RUNS, results },
  table,
);
