/**
 * Benchmark (not a test): agent runs against the floor of Temporal itself, in one run on one
 * embedded dev server, as medians of interleaved repeats (so noise hits every variant alike).
 * 1. A 4-model + 3-fast-tool run (instant model, no-op tool) against a workflow of 8 plain no-op
 *    activities (the same number of steps) and `@temporalio/ai-sdk`'s loop over the same steps, each
 *    started as plain Temporal starts them (a client on a connection of its own). Ours starts as it
 *    does beside its worker: on the worker's connection, eagerly. So that the start path is not
 *    all the difference, the 8 activities and Temporal's own floor for the shape (4 plain
 *    activities with a local no-op activity between each) are measured started the same way too.
 * 2. 200 concurrent runs of 2 model steps of 200 ms and one tool call: ours (fast tool, the tool as
 *    a normal activity, and each run's events read live) against plain Temporal with three activities per workflow, the same with
 *    the tool as a local activity, and the AI SDK loop.
 * Our worker runs with createAgentWorker's defaults; the baselines' workers (plain, and the AI SDK's
 * own) get 1000 activity and local-activity slots and a 1000-run cache. Writes
 * bench/results/floor.json and .md. FLOOR_REPEATS and FLOOR_RUNS shorten it.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { AgentClient } from '../src/client/agent-client.ts';
import { EmbeddedTemporalServer } from '../src/embedded/dev-server.ts';
import { InMemoryMemoryStore } from '../src/memory/in-memory.ts';
import { createAgentWorker } from '../src/worker.ts';
import { floorActivities, loopProvider } from './floor/activities.ts';
import { LoopModel, NoopTool } from './loop-agent.ts';
import { writeResults } from './write-results.ts';

const ITERATIONS = 4;
const RUNS = Number(process.env.FLOOR_RUNS ?? 60);
const REPEATS = Number(process.env.FLOOR_REPEATS ?? 3);
const CONCURRENT_RUNS = 200;
const SLOW_MODEL_MS = 200;

Runtime.install({ logger: new DefaultLogger('ERROR') });

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

const server = await EmbeddedTemporalServer.start();
const nativeConnection = await NativeConnection.connect({ address: server.address });
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection });
const stops: Array<() => Promise<void>> = [];

async function serve(worker: Worker): Promise<void> {
  const running = worker.run();
  stops.push(async () => {
    worker.shutdown();
    await running;
  });
}

try {
  // Ours, on createAgentWorker's defaults.
  const agentQueue = `floor-agents-${randomUUID()}`;
  await serve(
    await createAgentWorker({
      connection: nativeConnection,
      taskQueue: agentQueue,
      memoryStore: new InMemoryMemoryStore(),
      agents: {
        instant: { llm: new LoopModel(ITERATIONS), tools: [new NoopTool({ fast: true })] },
        slow: { llm: new LoopModel(2, SLOW_MODEL_MS), tools: [new NoopTool({ fast: true })] },
        slowActivity: { llm: new LoopModel(2, SLOW_MODEL_MS), tools: [new NoopTool()] },
      },
    }),
  );
  // In the worker's process, a client on the worker's connection: runs start eagerly.
  const eagerClient = new Client({ connection: nativeConnection });
  const agents = new AgentClient({ client: eagerClient, taskQueue: agentQueue });

  // The baselines, each on a worker tuned for the load: plain activities (Temporal's floor), and
  // the AI SDK loop on a worker of its own (its plugin weighs on no other baseline).
  const tuned = {
    connection: nativeConnection,
    activities: floorActivities,
    maxConcurrentActivityTaskExecutions: 1000,
    maxConcurrentLocalActivityExecutions: 1000,
    maxCachedWorkflows: 1000,
  };
  const plainQueue = `floor-plain-${randomUUID()}`;
  await serve(
    await Worker.create({
      ...tuned,
      taskQueue: plainQueue,
      workflowsPath: fileURLToPath(new URL('./floor/workflows.ts', import.meta.url)),
    }),
  );
  const aiSdkQueue = `floor-ai-sdk-${randomUUID()}`;
  await serve(
    await Worker.create({
      ...tuned,
      taskQueue: aiSdkQueue,
      workflowsPath: fileURLToPath(new URL('./floor/ai-sdk-workflows.ts', import.meta.url)),
      plugins: [new AiSdkPlugin({ modelProvider: loopProvider(SLOW_MODEL_MS) })],
    }),
  );
  const execute = (workflow: string, args: unknown[], taskQueue = plainQueue) =>
    client.workflow.execute(workflow, { taskQueue, workflowId: `floor-${randomUUID()}`, args });
  const executeEagerly = (workflow: string, args: unknown[]) =>
    eagerClient.workflow.execute(workflow, {
      taskQueue: plainQueue,
      workflowId: `floor-${randomUUID()}`,
      args,
      requestEagerStart: true,
    });

  const sequential = {
    ours: () => agents.run('instant', 'go'),
    plain8: () => execute('plainActivities', [2 * ITERATIONS]),
    aiSdk: () => execute('aiSdkLoop', [`loop-${ITERATIONS}`, ITERATIONS], aiSdkQueue),
    plain8Eager: () => executeEagerly('plainActivities', [2 * ITERATIONS]),
    plainLocalEager: () => executeEagerly('plainWithLocalTools', [ITERATIONS]),
  };
  const concurrent = {
    ours: () => agents.run('slow', 'go'),
    oursToolAsActivity: () => agents.run('slowActivity', 'go'),
    // Each run read live, as a UI or an SSE endpoint would (the events query, polled).
    oursStreamed: async () => {
      for await (const _ of agents.stream('slow', 'go'));
    },
    plain: () => execute('plainAgentShape', [SLOW_MODEL_MS]),
    plainLocal: () => execute('plainAgentShapeLocalTool', [SLOW_MODEL_MS]),
    aiSdk: () => execute('aiSdkLoop', ['slow-2', 2], aiSdkQueue),
  };

  // Warm-up: every variant once, and a small burst.
  for (const run of [...Object.values(sequential), ...Object.values(concurrent)]) await run();
  for (const run of Object.values(concurrent)) await Promise.all(Array.from({ length: 20 }, run));

  const seq = {
    ours: [] as number[],
    plain8: [] as number[],
    aiSdk: [] as number[],
    plain8Eager: [] as number[],
    plainLocalEager: [] as number[],
  };
  // Each round starts with the next variant: a run is slowed by what the one before it left the
  // server to do (the AI SDK loop's run is the heaviest), so no variant always follows the same one.
  const variants = Object.entries(sequential);
  for (let i = 0; i < RUNS; i++)
    for (let j = 0; j < variants.length; j++) {
      const [name, run] = variants[(i + j) % variants.length]!;
      seq[name as keyof typeof seq].push(await timed(run));
    }

  const conc = {
    ours: [] as number[],
    oursToolAsActivity: [] as number[],
    oursStreamed: [] as number[],
    plain: [] as number[],
    plainLocal: [] as number[],
    aiSdk: [] as number[],
  };
  for (let r = 0; r < REPEATS; r++)
    for (const [name, run] of Object.entries(concurrent))
      conc[name as keyof typeof conc].push(
        await timed(() => Promise.all(Array.from({ length: CONCURRENT_RUNS }, run))),
      );

  const s = {
    ours: median(seq.ours),
    plain8: median(seq.plain8),
    aiSdk: median(seq.aiSdk),
    plain8Eager: median(seq.plain8Eager),
    plainLocalEager: median(seq.plainLocalEager),
  };
  const c = {
    ours: median(conc.ours),
    oursToolAsActivity: median(conc.oursToolAsActivity),
    oursStreamed: median(conc.oursStreamed),
    plain: median(conc.plain),
    plainLocal: median(conc.plainLocal),
    aiSdk: median(conc.aiSdk),
  };
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    sequential: {
      iterations: ITERATIONS,
      fast_tool_calls: ITERATIONS - 1,
      runs_each: RUNS,
      median_ms: s,
      ratio_to_8_plain_activities: s.ours / s.plain8,
      ratio_to_ai_sdk: s.ours / s.aiSdk,
      started_alike: {
        ratio_to_8_plain_activities: s.ours / s.plain8Eager,
        ratio_to_plain_with_local_tools: s.ours / s.plainLocalEager,
        plain_with_local_tools_ratio_to_8_plain_activities: s.plainLocalEager / s.plain8Eager,
      },
      targets: { ratio_to_8_plain_activities: 0.7, ratio_to_ai_sdk: 0.6 },
    },
    concurrent: {
      runs: CONCURRENT_RUNS,
      model_steps: 2,
      model_delay_ms: SLOW_MODEL_MS,
      repeats: REPEATS,
      median_wall_ms: c,
      ratio_to_plain: c.ours / c.plain,
      ratio_to_ai_sdk: c.ours / c.aiSdk,
      tool_as_activity_ratio_to_plain: c.oursToolAsActivity / c.plain,
      streamed_ratio_to_plain: c.oursStreamed / c.plain,
      ratio_to_plain_with_local_tool: c.ours / c.plainLocal,
      targets: { ratio_to_plain: 1.05, ratio_to_ai_sdk: 0.65 },
    },
  };
  const f = (n: number) => n.toFixed(2);
  const table = [
    '# Against the floor',
    '',
    `Measured ${results.date} on Node ${results.node}, embedded Temporal dev server, workers in process.`,
    `Medians of interleaved repeats: ${RUNS} runs of each variant in turns; ${REPEATS} bursts of each in turns.`,
    'Ours runs on `createAgentWorker` defaults; the baselines get 1000 activity and local-activity slots and a 1000-run cache (the AI SDK loop on a worker of its own).',
    'Ours starts runs on its worker\'s connection, eagerly; the baselines start as plain Temporal does (a client on a connection of its own), and the rows marked "started alike" start eagerly as ours does.',
    '',
    '| measure | value |',
    '| --- | --- |',
    `| ${ITERATIONS}-model + ${ITERATIONS - 1}-fast-tool run, ours, median | ${f(s.ours)} ms |`,
    `| ${2 * ITERATIONS} plain no-op activities, median | ${f(s.plain8)} ms |`,
    `| \`@temporalio/ai-sdk\` loop, same steps, median | ${f(s.aiSdk)} ms |`,
    `| ours / ${2 * ITERATIONS} plain activities | ${f(s.ours / s.plain8)}× (target ≤ 0.70) |`,
    `| ours / AI SDK loop | ${f(s.ours / s.aiSdk)}× (target ≤ 0.60) |`,
    `| started as ours is (eagerly, on the worker's connection): ${2 * ITERATIONS} plain activities, median | ${f(s.plain8Eager)} ms |`,
    `| the same: ${ITERATIONS} plain activities with a local no-op activity between each (Temporal's floor for fast tools), median | ${f(s.plainLocalEager)} ms |`,
    `| ours / ${2 * ITERATIONS} plain activities started alike | ${f(s.ours / s.plain8Eager)}× |`,
    `| ours / Temporal's floor for fast tools started alike | ${f(s.ours / s.plainLocalEager)}× (that floor / ${2 * ITERATIONS} plain activities: ${f(s.plainLocalEager / s.plain8Eager)}×) |`,
    `| ${CONCURRENT_RUNS} concurrent runs (2 × ${SLOW_MODEL_MS} ms model, 1 fast tool), ours | ${f(c.ours)} ms wall |`,
    `| the same, the tool as a normal activity | ${f(c.oursToolAsActivity)} ms wall |`,
    `| the same, each run's events read live (\`stream\`) | ${f(c.oursStreamed)} ms wall (${f(c.oursStreamed / c.plain)}× plain Temporal) |`,
    `| plain Temporal, 3 activities per workflow | ${f(c.plain)} ms wall |`,
    `| plain Temporal, the tool as a local activity | ${f(c.plainLocal)} ms wall |`,
    `| \`@temporalio/ai-sdk\` loop, same shape | ${f(c.aiSdk)} ms wall |`,
    `| ours / plain Temporal | ${f(c.ours / c.plain)}× (target ≤ 1.05; tool as activity ${f(c.oursToolAsActivity / c.plain)}×) |`,
    `| ours / AI SDK loop | ${f(c.ours / c.aiSdk)}× (target ≤ 0.65) |`,
    `| ours / plain Temporal with the tool local | ${f(c.ours / c.plainLocal)}× |`,
    '',
  ].join('\n');
  await writeResults('floor', results, table);
} finally {
  for (const stop of stops.reverse()) await stop();
  await connection.close();
  await nativeConnection.close();
  await server.close();
}
