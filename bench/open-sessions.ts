/**
 * Benchmark (not a test): many idle chat sessions open on one worker. For each count in
 * `--sessions` (default 50,1000; e.g. `--sessions 50,1000,10000`), a fresh worker in a process of
 * its own (bench/open-sessions/worker.ts: an instant model, conversations in SQLite) serves a task
 * queue on the embedded server; this process opens that many sessions (one turn each, 50 at a
 * time), lets them sit idle, then asks the 100 it opened first (the coldest: evicted first from
 * the worker's workflow cache) a second question all at once. Reports the opening rate, the
 * worker's resident memory (before, idle, peak) and per session, and the second turn's p50 / p95.
 * `--max-cached <n>` sets the worker's `maxCachedWorkflows` (default: createAgentWorker's).
 * Writes bench/results/open-sessions.json and .md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../src/client/agent-client.ts';
import { EmbeddedTemporalServer } from '../src/embedded/dev-server.ts';
import { DEFAULT_MAX_CACHED_WORKFLOWS } from '../src/worker-concurrency.ts';
import { writeResults } from './write-results.ts';

const { values } = parseArgs({
  options: { sessions: { type: 'string', default: '50,1000' }, 'max-cached': { type: 'string' } },
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

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function startWorker(address: string, taskQueue: string, memoryDb: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('./open-sessions/worker.ts', import.meta.url))],
    {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: address,
        TASK_QUEUE: taskQueue,
        MEMORY_DB: memoryDb,
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

interface Row {
  sessions: number;
  opened_per_second: number;
  rss_before_mb: number;
  rss_idle_mb: number;
  rss_peak_mb: number;
  kb_per_session: number;
  asked_at_once: number;
  second_turn_p50_ms: number;
  second_turn_p95_ms: number;
}

try {
  const rows: Row[] = [];
  for (const count of COUNTS) {
    const taskQueue = `open-sessions-${randomUUID()}`;
    const worker = await startWorker(server.address, taskQueue, join(folder, `${count}.sqlite`));
    try {
      const agents = new AgentClient({ client, taskQueue });
      await sleep(2_000);
      const before = await residentMb(worker.pid!);
      const sessions = Array.from({ length: count }, (_, i) =>
        agents.chatSession('chat', { sessionId: `s${count}-${i}` }),
      );
      const openStart = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: OPENING_AT_ONCE }, async () => {
          while (next < sessions.length) await sessions[next++]!.send('hello');
        }),
      );
      const openSeconds = (performance.now() - openStart) / 1000;
      await sleep(3_000);
      const idle = await residentMb(worker.pid!);
      const asked = sessions.slice(0, ASKED);
      const latency = await Promise.all(
        asked.map(async (session) => {
          const start = performance.now();
          const answer = await session.send('again');
          if (answer.output !== 'ok' || answer.turn !== 2)
            throw new Error(`Unexpected answer: ${JSON.stringify(answer)}`);
          return performance.now() - start;
        }),
      );
      const after = await residentMb(worker.pid!);
      const row: Row = {
        sessions: count,
        opened_per_second: count / openSeconds,
        rss_before_mb: before.now,
        rss_idle_mb: idle.now,
        rss_peak_mb: after.peak,
        kb_per_session: ((idle.now - before.now) * 1024) / count,
        asked_at_once: asked.length,
        second_turn_p50_ms: percentile(latency, 50),
        second_turn_p95_ms: percentile(latency, 95),
      };
      console.log(JSON.stringify(row));
      rows.push(row);
    } finally {
      await stopWorker(worker);
    }
  }
  const base = rows.find((row) => row.sessions === 50);
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    max_cached_workflows: MAX_CACHED ? Number(MAX_CACHED) : DEFAULT_MAX_CACHED_WORKFLOWS,
    rows,
    p95_ratio_to_50: base
      ? Object.fromEntries(rows.map((r) => [r.sessions, r.second_turn_p95_ms / base.second_turn_p95_ms]))
      : {},
    targets: { rss_mb_at_10000: 1024, p95_ratio_to_50: 1.5 },
  };
  const table = [
    '# Open sessions on one worker',
    '',
    `Measured ${results.date} on Node ${results.node}, embedded server, the worker in a process of its own (instant model, SQLite memory), \`maxCachedWorkflows\` ${results.max_cached_workflows}.`,
    `Sessions opened ${OPENING_AT_ONCE} at a time (one turn each); then the ${ASKED} opened first (or all, if fewer) asked a second question at once.`,
    '',
    '| sessions | opened / s | worker RSS before | idle | peak | per session | second turn p50 | p95 | p95 / p95 at 50 |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.sessions} | ${r.opened_per_second.toFixed(0)} | ${r.rss_before_mb.toFixed(0)} MB | ${r.rss_idle_mb.toFixed(0)} MB | ${r.rss_peak_mb.toFixed(0)} MB | ${r.kb_per_session.toFixed(0)} KB | ${r.second_turn_p50_ms.toFixed(0)} ms | ${r.second_turn_p95_ms.toFixed(0)} ms | ${base ? (r.second_turn_p95_ms / base.second_turn_p95_ms).toFixed(2) + '×' : '—'} |`,
    ),
    '',
    'Targets: under 1 GB resident with 10,000 sessions; p95 of 100 asked at once within 1.5× the p95 at 50.',
    '',
  ].join('\n');
  await writeResults('open-sessions', results, table);
} finally {
  await connection.close();
  await server.close();
  await rm(folder, { recursive: true, force: true });
}
