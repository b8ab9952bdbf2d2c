/**
 * Benchmark (not a test): what an evicted chat session's next turn costs, by how many turns its run
 * holds. A worker in this process caches 10 workflows (an instant model, conversations in SQLite);
 * for each count of turns (1, 7 and 30: past the 100 events at which a session continues as new),
 * 10 sessions take that many turns, 20 more sessions push them out of the cache, then each of the
 * 10 takes one more turn, one at a time, and so do 10 of the 20 (still cached). Reports this
 * process's CPU (worker and client) per turn, evicted and cached, and the length of the sessions'
 * runs. Writes bench/results/session-replay.json and .md.
 */
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentClient } from '../src/client/agent-client.ts';
import type { AgentChatSession } from '../src/client/chat-session.ts';
import { EmbeddedTemporalServer } from '../src/embedded/dev-server.ts';
import { SqliteMemoryStore } from '../src/memory/sqlite.ts';
import { createAgentWorker } from '../src/worker.ts';
import { instantModel } from './loop-agent.ts';
import { writeResults } from './write-results.ts';

const SESSIONS = 10;
const TURNS = [1, 7, 30];

Runtime.install({ logger: new DefaultLogger('ERROR') });
const folder = await mkdtemp(join(tmpdir(), 'session-replay-'));
const server = await EmbeddedTemporalServer.start();
const connection = await Connection.connect({ address: server.address });
const native = await NativeConnection.connect({ address: server.address });
const client = new Client({ connection });
const worker = await createAgentWorker({
  connection: native,
  taskQueue: 'session-replay',
  agents: { chat: { llm: instantModel } },
  memoryStore: new SqliteMemoryStore({ path: join(folder, 'memory.sqlite') }),
  maxCachedWorkflows: SESSIONS,
});
const running = worker.run();
const agents = new AgentClient({ client, taskQueue: 'session-replay' });

/** This process's CPU (user and system) per turn while `sessions` each take one more turn, in turn. */
async function cpuPerTurn(sessions: AgentChatSession[]): Promise<number> {
  const start = process.cpuUsage();
  for (const session of sessions) await session.send('again');
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000 / sessions.length;
}

const open = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => agents.chatSession('chat', { sessionId: `${prefix}-${i}` }));

try {
  const rows = [];
  for (const turns of TURNS) {
    const sessions = open(`turns-${turns}`, SESSIONS);
    await Promise.all(
      sessions.map(async (session) => {
        for (let turn = 0; turn < turns; turn++) await session.send('hello');
      }),
    );
    const runEvents = await Promise.all(
      sessions.map(async (s) => (await client.workflow.getHandle(s.workflowId).describe()).historyLength),
    );
    const others = open(`others-${turns}`, 2 * SESSIONS);
    await Promise.all(others.map((session) => session.send('hello')));
    const row = {
      turns,
      run_events_max: Math.max(...runEvents),
      evicted_cpu_ms_per_turn: await cpuPerTurn(sessions),
      cached_cpu_ms_per_turn: await cpuPerTurn(others.slice(-SESSIONS)),
    };
    console.log(JSON.stringify(row));
    rows.push(row);
  }
  const results = { date: new Date().toISOString(), node: process.version, rows };
  const table = [
    "# An evicted session's next turn",
    '',
    `Measured ${results.date} on Node ${results.node}: a worker caching ${SESSIONS} workflows in this process, embedded server, an instant model. CPU of this process (worker and client) per turn.`,
    '',
    '| turns taken | events in the run (at most) | next turn, evicted | cached |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.turns} | ${r.run_events_max} | ${r.evicted_cpu_ms_per_turn.toFixed(0)} ms | ${r.cached_cpu_ms_per_turn.toFixed(0)} ms |`,
    ),
    '',
  ].join('\n');
  await writeResults('session-replay', results, table);
} finally {
  worker.shutdown();
  await running;
  await native.close();
  await connection.close();
  await server.close();
  await rm(folder, { recursive: true, force: true });
}
