/**
 * The fault suite (`npm run faults`; `-- --short` for CI): durability measured under faults, on a
 * dev server with a SQLite database file, workers in processes of their own. Scenarios:
 * A. workers SIGKILLed at random moments while runs make three idempotent writes each;
 * B. the server SIGKILLed and started again on the same file with runs in flight;
 * C. a chat session with 3 concurrent senders while its worker is killed twice;
 * D. a graceful worker shutdown (SIGTERM) with tool calls in flight;
 * E. a worker frozen with SIGSTOP mid-step, thawed after another worker finished the step (full run only);
 * F. every history the scenarios wrote replayed with the workflow code;
 * G. scenario A with the writes made by a fast tool (carried by the next model step): each call repeated at most
 *    once per kill, its idempotency key (run and call id) the same on every repeat.
 * Writes bench/results/faults.json and .md (each figure with its goal); exits 1 when a goal is missed.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { AgentClient } from '../../src/client/agent-client.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';
import { workflowSpanSinks } from '../../src/telemetry/workflow-span-sink.ts';
import { buildAgentWorkflowBundle } from '../../src/workflow-bundle.ts';
import { writeResults } from '../write-results.ts';
import { KillableServer, Upstream, WorkerPool } from './cluster.ts';

Runtime.install({ logger: new DefaultLogger('WARN') });
const short = process.argv.includes('--short');
const RUNS = short ? 20 : 100;
/** Worker SIGKILLs in scenario A. */
const KILLS = short ? 3 : 8;
const dir = await mkdtemp(join(tmpdir(), 'faults-'));
const bundlePath = join(dir, 'workflow-bundle.cjs');
await writeFile(bundlePath, (await buildAgentWorkflowBundle()).code);
const server = await KillableServer.start(join(dir, 'temporal.sqlite'));
const upstream = new Upstream();
await upstream.listen();
const memoryDb = join(dir, 'memory.sqlite');
const taskQueue = `faults-${randomUUID()}`;
const env = {
  TEMPORAL_ADDRESS: server.address,
  WORKFLOW_BUNDLE: bundlePath,
  TASK_QUEUE: taskQueue,
  MEMORY_DB: memoryDb,
  UPSTREAM: '',
};
env.UPSTREAM = upstream.url;
const pool = new WorkerPool(env);
const connection = await Connection.connect({ address: server.address });
const agents = new AgentClient({ client: new Client({ connection }), taskQueue });

interface Figure {
  name: string;
  value: number;
  goal: number;
  /** 'eq': value must equal goal; 'atLeast': value must reach it; 'atMost': not pass it; 'info': reported, no goal. */
  kind: 'eq' | 'atLeast' | 'atMost' | 'info';
}
const figures: Figure[] = [];
const round = (value: number) => Math.round(value * 100) / 100;
const figure = (name: string, value: number, goal: number, kind: Figure['kind'] = 'eq') =>
  figures.push({ name, value, goal, kind });

/** What the live streams threw, for the results file. */
const streamErrors: string[] = [];
/** Histories that failed to replay, with the reason. */
const replayErrors: string[] = [];

/** Follows a run's events; counts gaps, duplicates and a stream error, and notes when the stream ended. */
async function follow(
  events: AsyncIterable<AgentEvent>,
): Promise<{ anomalies: number; error: boolean; endedAt: number }> {
  const seqs: number[] = [];
  let last: AgentEvent | undefined;
  try {
    for await (const event of events) {
      seqs.push(event.seq);
      last = event;
    }
  } catch (error) {
    streamErrors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    return { anomalies: 0, error: true, endedAt: Date.now() };
  }
  const anomalies = seqs.filter((seq, i) => seq !== i + 1).length + (last?.type === 'run_completed' ? 0 : 1);
  return { anomalies, error: false, endedAt: Date.now() };
}

/** Runs of the `writer` agent (or `fastWriter`): results, event checks and the upstream's view of their writes. */
async function writerRuns(
  count: number,
  during: (settled: () => boolean, over: Promise<unknown>) => Promise<void>,
  agent = 'writer',
) {
  const handles = await Promise.all(Array.from({ length: count }, (_, i) => agents.start(agent, `run ${i}`)));
  const streams = Promise.all(handles.map((handle) => follow(handle.events())));
  let done = false;
  // When each result arrived: a live reader should end within seconds of it, however many workers died.
  const resultAt = handles.map(() => Number.NaN);
  const results = Promise.allSettled(
    handles.map((handle, i) => handle.result().finally(() => (resultAt[i] = Date.now()))),
  ).finally(() => (done = true));
  await during(() => done, results);
  const settled = await results;
  const followed = await streams;
  const ids = handles.map((h) => h.workflowId);
  const counts = ids.flatMap((id) => [1, 2, 3].map((n) => upstream.writesOf(id, n)));
  return {
    completed: settled.filter((r) => r.status === 'fulfilled' && r.value.output === 'wrote 3 records').length,
    missing: counts.filter((c) => c === 0).length,
    duplicated: counts.filter((c) => c > 1).reduce((sum, c) => sum + c - 1, 0),
    raw: upstream.raw.filter((r) => ids.includes(r.run)).length,
    /** The most requests one logical write took (1 when no call ran twice). */
    mostRuns: Math.max(
      0,
      ...ids.flatMap((id) =>
        [1, 2, 3].map((n) => upstream.raw.filter((r) => r.run === id && r.n === n).length),
      ),
    ),
    anomalies: followed.reduce((sum, f) => sum + f.anomalies, 0),
    streamErrors: followed.filter((f) => f.error).length,
    /** The longest a live reader ended after its run's result, in seconds (0 when it ended first). */
    maxLagS: Math.max(0, ...followed.map((f, i) => (f.endedAt - resultAt[i]!) / 1000)),
  };
}

try {
  // A. Workers SIGKILLed at random moments, a new one started each time. The moments are drawn from
  // the runs' progress (kill k after a random number of writes between (k - 1/2) and k (K + 1)ths of
  // them), not from the clock, so that the short and the full version, on a fast or a slow machine,
  // always kill K workers while runs are in flight.
  let worker = await pool.start();
  let kills = 0;
  const a = await writerRuns(RUNS, async (settled, over) => {
    for (let k = 1; k <= KILLS && !settled(); k++) {
      const writes = Math.floor((RUNS * 3 * (k - Math.random() / 2)) / (KILLS + 1));
      await Promise.race([upstream.writtenAtLeast(writes), over]);
      if (settled()) break;
      await pool.kill(worker);
      kills += 1;
      worker = await pool.start();
    }
  });
  figure('A. worker SIGKILLs with runs in flight', kills, KILLS, 'atLeast');
  figure(`A. runs completed (of ${RUNS})`, a.completed, RUNS);
  figure('A. logical writes missing', a.missing, 0);
  figure('A. logical writes duplicated', a.duplicated, 0);
  figure(
    'A. raw requests repeated by retries (the idempotency key absorbed them)',
    a.raw - RUNS * 3,
    0,
    'info',
  );
  figure('A. event sequences with gaps or duplicates', a.anomalies, 0);
  figure('A. live stream errors', a.streamErrors, 0);
  figure('A. longest a live stream ended after its result (s)', round(a.maxLagS), 5, 'atMost');

  // G. Scenario A with a fast tool: the writes ride with the next model step, inside its activity.
  const before = upstream.byKey.size;
  let fastKills = 0;
  const g = await writerRuns(
    RUNS,
    async (settled, over) => {
      for (let k = 1; k <= KILLS && !settled(); k++) {
        const writes = before + Math.floor((RUNS * 3 * (k - Math.random() / 2)) / (KILLS + 1));
        await Promise.race([upstream.writtenAtLeast(writes), over]);
        if (settled()) break;
        await pool.kill(worker);
        fastKills += 1;
        worker = await pool.start();
      }
    },
    'fastWriter',
  );
  figure('G. worker SIGKILLs with fast tool calls in flight', fastKills, KILLS, 'atLeast');
  figure(`G. runs completed (of ${RUNS})`, g.completed, RUNS);
  figure('G. logical writes missing', g.missing, 0);
  figure('G. logical writes duplicated', g.duplicated, 0);
  figure('G. raw requests repeated (a fast call killed mid-way runs again)', g.raw - RUNS * 3, 0, 'info');
  // A call is repeated only when a kill lands while it runs: at most once per kill.
  figure('G. most times one call ran', g.mostRuns, 1 + fastKills, 'atMost');
  figure('G. event sequences with gaps or duplicates', g.anomalies, 0);

  // B. The server SIGKILLed and started again on the same database file, runs in flight.
  const b = await writerRuns(Math.max(5, RUNS / 10), async () => {
    await sleep(500);
    await server.kill('SIGKILL');
    await sleep(1000);
    await server.restart();
  });
  figure('B. runs completed across a server SIGKILL and restart', b.completed, Math.max(5, RUNS / 10));
  figure('B. logical writes missing or duplicated', b.missing + b.duplicated, 0);
  figure('B. event anomalies and live stream errors', b.anomalies + b.streamErrors, 0);
  figure('B. longest a live stream ended after its result (s)', round(b.maxLagS), 5, 'atMost');

  // C. A chat session: 3 concurrent senders, its worker killed twice.
  const session = agents.chatSession('chatty', { memoryStore: new SqliteMemoryStore({ path: memoryDb }) });
  const sends = Array.from({ length: 3 }, (_, sender) =>
    (async () => {
      const answers: string[] = [];
      for (let i = 0; i < 3; i++) answers.push((await session.send(`s${sender}m${i}`)).output);
      return answers;
    })(),
  );
  for (const delay of [300, 1500]) {
    await sleep(delay);
    await pool.kill(worker);
    worker = await pool.start();
  }
  const answered = (await Promise.allSettled(sends)).flatMap((r) =>
    r.status === 'fulfilled' ? r.value : [],
  );
  const history = await session.history();
  const unpaired = history.filter(
    (m, i) => m.role === 'user' && history[i + 1]?.content !== `answer to ${String(m.content)}`,
  ).length;
  figure('C. chat sends answered (of 9)', answered.length, 9);
  figure('C. answers not paired with their prompt in the stored session', unpaired, 0);
  figure('C. user turns stored (of 9)', history.filter((m) => m.role === 'user').length, 9);

  // D. A graceful shutdown while slow tool calls run: they finish, another worker completes the runs.
  const slow = await Promise.all(Array.from({ length: 5 }, (_, i) => agents.start('slow', `slow ${i}`)));
  await sleep(700);
  await pool.kill(worker, 'SIGTERM');
  worker = await pool.start();
  const slowDone = (await Promise.allSettled(slow.map((h) => h.result()))).filter(
    (r) => r.status === 'fulfilled',
  );
  const slowWrites = upstream.raw.filter((r) => slow.some((h) => h.workflowId === r.run));
  figure('D. runs completed after a graceful shutdown (of 5)', slowDone.length, 5);
  figure('D. tool calls cancelled by the shutdown', slowWrites.filter((r) => r.cancelled).length, 0);
  figure('D. tool calls run twice', slowWrites.length - 5, 0);

  if (!short) figure(...(await frozenScenario()));

  // Every history the scenarios wrote must replay with the workflow code: one that does not would
  // leave its run stuck the next time a worker has to rebuild it (a restart, a full cache).
  const unreplayable = await unreplayableHistories();
  figure(`F. histories that do not replay (of ${unreplayable.total})`, unreplayable.failed.length, 0);
  replayErrors.push(...unreplayable.failed);
} finally {
  await pool.stopAll();
  await connection.close();
  await server.kill('SIGTERM');
  upstream.close();
  await rm(dir, { recursive: true, force: true });
}

/** Replays every workflow history on the server with the suite's workflow bundle. */
async function unreplayableHistories(): Promise<{ total: number; failed: string[] }> {
  const histories = agents.client.workflow.list().intoHistories();
  const failed: string[] = [];
  let total = 0;
  // The span sink of the bundled interceptors, dropping: a replay exports nothing.
  const options = {
    workflowBundle: { codePath: bundlePath },
    sinks: workflowSpanSinks(undefined, () => undefined),
  };
  for await (const result of Worker.runReplayHistories(options, histories)) {
    total += 1;
    if (result.error) failed.push(`${result.workflowId}: ${result.error.message.slice(0, 300)}`);
  }
  return { total, failed };
}

/** E. The SIGSTOP scenario of test/integration/frozen-worker.test.ts, counted. */
async function frozenScenario(): Promise<[string, number, number]> {
  const frozenEnv = { MODE: 'freeze', MARKER_FILE: join(dir, 'marker') };
  const script = 'test/fixtures/worker-process.ts';
  const frozen = await pool.start(script, {
    ...frozenEnv,
    FREEZE_FIRST: '1',
    FEW_POLLS: '1',
    TASK_QUEUE: 'frozen',
  });
  const frozenAgents = new AgentClient({ client: new Client({ connection }), taskQueue: 'frozen' });
  const handle = await frozenAgents.start('frozen', 'Wait for the marker');
  await frozen.waitForLine(/^MODEL_STEP 1 /);
  frozen.child.kill('SIGSTOP');
  const second = pool.start(script, { ...frozenEnv, TASK_QUEUE: 'frozen' });
  await (await second).waitForLine(/^TOOL_WAITING$/);
  frozen.child.kill('SIGCONT');
  await frozen.waitForLine(/^APPENDED 1 1$/);
  await sleep(1000);
  await writeFile(frozenEnv.MARKER_FILE, 'go');
  const output = (await handle.result()).output;
  const store = new SqliteMemoryStore({ path: memoryDb });
  const stored = await store.read(handle.workflowId);
  await store.close();
  const asked = stored.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
  const anomalies =
    asked.filter((id) => id !== 'call_accepted').length +
    (output === 'assistant asked call_accepted; results for call_accepted' ? 0 : 1);
  return ['E. stored-conversation anomalies after a frozen worker woke', anomalies, 0];
}

const passed = (f: Figure) =>
  f.kind === 'info' ||
  (f.kind === 'atLeast' ? f.value >= f.goal : f.kind === 'atMost' ? f.value <= f.goal : f.value === f.goal);
const table = [
  `# Fault suite${short ? ' (short)' : ''}`,
  '',
  '| figure | value | goal | met |',
  '| --- | ---: | ---: | --- |',
  ...figures.map(
    (f) =>
      `| ${f.name} | ${f.value} | ${f.kind === 'info' ? '(reported)' : f.kind === 'atLeast' ? `≥ ${f.goal}` : f.kind === 'atMost' ? `≤ ${f.goal}` : f.goal} | ${passed(f) ? 'yes' : 'NO'} |`,
  ),
  '',
].join('\n');
await writeResults(
  short ? 'faults-short' : 'faults',
  { short, runs: RUNS, figures, streamErrors, replayErrors },
  table +
    streamErrors.map((e) => `Live stream error: ${e}\n`).join('') +
    replayErrors.map((e) => `Replay failed: ${e}\n`).join(''),
);
process.exit(figures.every(passed) ? 0 : 1);
