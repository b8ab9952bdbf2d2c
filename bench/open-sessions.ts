/**
 * Benchmark (not a test): many idle chat sessions open on one worker. For each count in
 * `--sessions` (default 50,100,1000; e.g. `--sessions 50,100,1000,10000`), a fresh worker in a
 * process of its own (bench/open-sessions/worker.ts: an instant model, conversations in SQLite, the
 * workflows prebuilt as from dist/) serves a task queue on the embedded server; this process opens
 * that many sessions (one turn each, 50 at a time), lets them sit idle, then asks the ones it opened
 * first (the coldest: evicted first from the worker's workflow cache) a second question all at once:
 * 100 of them, or all with fewer open. Reports the opening rate, the CPU the worker, the server and
 * this process (the client) spent per opening turn and per second turn, the worker's resident memory
 * (before, idle, peak) and per session, the second turn's p50 / p95, and the p95 against that of the
 * smallest count asking as many (100 open, all cached), with the machine's load average beside each
 * row.
 * `--max-cached <n>` sets the worker's `maxCachedWorkflows` (default: createAgentWorker's).
 * Writes bench/results/open-sessions.json and .md (with `--max-cached <n>`: open-sessions-max-cached-<n>.*).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../src/client/agent-client.ts';
import { EmbeddedTemporalServer } from '../src/embedded/dev-server.ts';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../src/worker-concurrency.ts';
import { buildAgentWorkflowBundle } from '../src/workflow-bundle.ts';
import { writeResults } from './write-results.ts';

const { values } = parseArgs({
  options: { sessions: { type: 'string', default: '50,100,1000' }, 'max-cached': { type: 'string' } },
});
const COUNTS = values.sessions.split(',').map(Number);
const MAX_CACHED = values['max-cached'];
const ASKED = 100;
const OPENING_AT_ONCE = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A process's resident memory now and at its peak, in MB (from /proc: Linux only). */
async function residentMb(pid: number): Promise<{ now: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { now: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** The CPU a process has used so far (user and system), in ms (from /proc: Linux only). */
async function cpuMs(pid: number): Promise<number> {
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}
const CLOCK_TICKS_PER_SECOND = 100;

/** The embedded server's process: the `temporal server start-dev` serving `port`. */
async function serverPid(port: string): Promise<number> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const args = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (args.startsWith('/') && args.includes('start-dev') && args.includes(`--port\0${port}\0`)) {
      return Number(entry);
    }
  }
  throw new Error(`No process of the embedded server on port ${port} found in /proc.`);
}

/** The machine's load average over the last minute. */
async function loadAverage(): Promise<number> {
  return Number((await readFile('/proc/loadavg', 'utf8')).split(' ')[0]);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function startWorker(
  address: string,
  taskQueue: string,
  memoryDb: string,
  bundle: string,
): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./open-sessions/worker.ts', import.meta.url))],
    {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: address,
        TASK_QUEUE: taskQueue,
        MEMORY_DB: memoryDb,
        WORKFLOW_BUNDLE: bundle,
        ...(MAX_CACHED ? { MAX_CACHED_WORKFLOWS: MAX_CACHED } : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('READY')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`The bench worker exited (${code}) before it was ready.`)));
  });
  return child;
}

async function stopWorker(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const server = await EmbeddedTemporalServer.start();
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection });
const folder = await mkdtemp(join(tmpdir(), 'open-sessions-'));
// What `npm run build` prebuilds for a worker without telemetry: the worker loads it, as one from dist/ does.
const bundle = join(folder, 'workflow-bundle.cjs');
await writeFile(bundle, (await buildAgentWorkflowBundle({ tracing: false })).code);

interface Row {
  sessions: number;
  load_average: number;
  opened_per_second: number;
  worker_cpu_ms_per_opening: number;
  server_cpu_ms_per_opening: number;
  client_cpu_ms_per_opening: number;
  rss_before_mb: number;
  rss_idle_mb: number;
  rss_peak_mb: number;
  kb_per_session: number;
  asked_at_once: number;
  second_turn_p50_ms: number;
  second_turn_p95_ms: number;
  worker_cpu_ms_per_second_turn: number;
  server_cpu_ms_per_second_turn: number;
  client_cpu_ms_per_second_turn: number;
}

/** The CPU the worker, the server and this process (the client) spend while `work` runs. */
async function cpuDuring(worker: number, server: number, work: () => Promise<unknown>) {
  const [worker0, server0, client0] = [await cpuMs(worker), await cpuMs(server), process.cpuUsage()];
  await work();
  const client = process.cpuUsage(client0);
  return {
    worker: (await cpuMs(worker)) - worker0,
    server: (await cpuMs(server)) - server0,
    client: (client.user + client.system) / 1000,
  };
}

const temporalServer = await serverPid(server.address.split(':').at(-1)!);

try {
  const rows: Row[] = [];
  for (const count of COUNTS) {
    const taskQueue = `open-sessions-${randomUUID()}`;
    const worker = await startWorker(server.address, taskQueue, join(folder, `${count}.sqlite`), bundle);
    try {
      const agents = new AgentClient({ client, taskQueue });
      await sleep(2_000);
      const before = await residentMb(worker.pid!);
      const sessions = Array.from({ length: count }, (_, i) =>
        agents.chatSession('chat', { sessionId: `s${count}-${i}` }),
      );
      const openStart = performance.now();
      let next = 0;
      const opening = await cpuDuring(worker.pid!, temporalServer, () =>
        Promise.all(
          Array.from({ length: OPENING_AT_ONCE }, async () => {
            while (next < sessions.length) await sessions[next++]!.send('hello');
          }),
        ),
      );
      const openSeconds = (performance.now() - openStart) / 1000;
      const load = await loadAverage();
      await sleep(3_000);
      const idle = await residentMb(worker.pid!);
      const asked = sessions.slice(0, ASKED);
      let latency: number[] = [];
      const asking = await cpuDuring(worker.pid!, temporalServer, async () => {
        latency = await Promise.all(
          asked.map(async (session) => {
            const start = performance.now();
            const answer = await session.send('again');
            if (answer.output !== 'ok' || answer.turn !== 2)
              throw new Error(`Unexpected answer: ${JSON.stringify(answer)}`);
            return performance.now() - start;
          }),
        );
      });
      const after = await residentMb(worker.pid!);
      const row: Row = {
        sessions: count,
        load_average: load,
        opened_per_second: count / openSeconds,
        worker_cpu_ms_per_opening: opening.worker / count,
        server_cpu_ms_per_opening: opening.server / count,
        client_cpu_ms_per_opening: opening.client / count,
        rss_before_mb: before.now,
        rss_idle_mb: idle.now,
        rss_peak_mb: after.peak,
        kb_per_session: ((idle.now - before.now) * 1024) / count,
        asked_at_once: asked.length,
        second_turn_p50_ms: percentile(latency, 50),
        second_turn_p95_ms: percentile(latency, 95),
        worker_cpu_ms_per_second_turn: asking.worker / asked.length,
        server_cpu_ms_per_second_turn: asking.server / asked.length,
        client_cpu_ms_per_second_turn: asking.client / asked.length,
      };
      console.log(JSON.stringify(row));
      rows.push(row);
    } finally {
      await stopWorker(worker);
    }
  }
  // Each row against the smallest count asking as many at once (100 open: every asked session cached).
  const baseOf = (row: Row) =>
    rows.find((r) => r.asked_at_once === row.asked_at_once && r.sessions < row.sessions);
  const ratio = (row: Row) => {
    const base = baseOf(row);
    return base ? row.second_turn_p95_ms / base.second_turn_p95_ms : undefined;
  };
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    max_cached_workflows: MAX_CACHED ? Number(MAX_CACHED) : DEFAULT_MAX_CACHED_WORKFLOWS,
    rows,
    p95_ratio_to_smallest: Object.fromEntries(
      rows.flatMap((r) => (ratio(r) ? [[r.sessions, ratio(r)]] : [])),
    ),
    targets: { rss_mb_at_10000: 1024, p95_ratio_to_smallest: 1.5 },
  };
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const table = [
    '# Open sessions on one worker',
    '',
    `Measured ${results.date} on Node ${results.node}, embedded server, the worker in a process of its own (instant model, SQLite memory, prebuilt workflow bundle), \`maxCachedWorkflows\` ${results.max_cached_workflows}.`,
    `Sessions opened ${OPENING_AT_ONCE} at a time (one turn each); then the ${ASKED} opened first (or all, if fewer) asked a second question at once. CPU: of the worker's process, the server's and this one's (the client), per turn. Load: the machine's load average (1 minute) after opening.`,
    '',
    '| sessions | load | opened / s | CPU per opening turn: worker | server | client | worker RSS before | idle | peak | per session | asked | second turn p50 | p95 | p95 / p95 of the smallest count | CPU per second turn: worker | server | client |',
    `|${' --- |'.repeat(17)}`,
    ...rows.map((r) => {
      const against = ratio(r);
      return `| ${r.sessions} | ${r.load_average.toFixed(1)} | ${r.opened_per_second.toFixed(0)} | ${ms(r.worker_cpu_ms_per_opening)} | ${ms(r.server_cpu_ms_per_opening)} | ${ms(r.client_cpu_ms_per_opening)} | ${r.rss_before_mb.toFixed(0)} MB | ${r.rss_idle_mb.toFixed(0)} MB | ${r.rss_peak_mb.toFixed(0)} MB | ${r.kb_per_session.toFixed(0)} KB | ${r.asked_at_once} | ${ms(r.second_turn_p50_ms)} | ${ms(r.second_turn_p95_ms)} | ${against ? `${against.toFixed(2)}×` : '—'} | ${ms(r.worker_cpu_ms_per_second_turn)} | ${ms(r.server_cpu_ms_per_second_turn)} | ${ms(r.client_cpu_ms_per_second_turn)} |`;
    }),
    '',
    'Targets: under 1 GB resident with 10,000 sessions; p95 of 100 asked at once within 1.5× the p95 with 100 open.',
    '',
  ].join('\n');
  await writeResults(MAX_CACHED ? `open-sessions-max-cached-${MAX_CACHED}` : 'open-sessions', results, table);
} finally {
  await connection.close();
  await server.close();
  await rm(folder, { recursive: true, force: true });
}
