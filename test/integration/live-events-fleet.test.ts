import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import type { LiveEventMessage } from '../../src/live-text/channel.ts';
import { PostgresLiveChannel } from '../../src/live-text/postgres.ts';
import { expectOneToolCallRun, readRun } from '../support/event-readers.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

const url = inject('postgresUrl');
if (!url) console.warn(`Skipping the live events fleet test: ${inject('postgresSkipped')}`);

/** The workers in processes of their own, the readers here: the run's events through PostgreSQL. */
describe.skipIf(!url)('the run events through PostgreSQL, the worker in another process', () => {
  let dir: string;
  let connection: Connection;
  const processes: NodeProcess[] = [];
  const channels: PostgresLiveChannel[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'live-events-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    // The workers hold their live channel's connections open: they are killed, not stopped.
    for (const p of processes) p.child.kill('SIGKILL');
    for (const channel of channels) await channel.close();
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The environment of a worker process on a queue of its own, its live channel the reader's. */
  async function fleet() {
    const taskQueue = `live-events-${randomUUID()}`;
    const notifyChannel = `live_events_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: taskQueue,
      MEMORY_DB: join(dir, `memory-${taskQueue}.sqlite`),
      MARKER_FILE: join(dir, `marker-${taskQueue}.log`),
      LIVE_CHANNEL: 'postgres',
      LIVE_PG_URL: url,
      LIVE_NOTIFY_CHANNEL: notifyChannel,
    };
    const channel = new PostgresLiveChannel({ connectionString: url, channel: notifyChannel });
    channels.push(channel);
    await channel.ready();
    const agents = new AgentClient({ client: new Client({ connection }), taskQueue });
    return { env, channel, agents };
  }

  function start(script: string, env: Record<string, string>): NodeProcess {
    const worker = startNodeProcess(script, env);
    processes.push(worker);
    return worker;
  }

  it('a reader hears the tool call, its result and the end with at most 3 queries for the turn', async () => {
    const { env, channel, agents } = await fleet();
    const worker = start('test/fixtures/worker-process.ts', { ...env, MODE: 'slow-tool' });
    await worker.waitForLine(/^READY$/);
    const started = await agents.startRun('finder', 'Find it');
    const read = await readRun(connection, started.workflowId, channel);
    console.log(
      `a streamed turn with a 3 s tool call, worker in another process: ${read.queries} events queries`,
    );
    expectOneToolCallRun(read.events);
    expect(read.text).toBe('It was found.');
    expect(read.queries).toBeLessThanOrEqual(3);
  }, 60_000);

  it('a worker SIGKILLed mid-turn: every event once, in seq order, as the run goes on elsewhere', async () => {
    const { env, channel, agents } = await fleet();
    const first = start('test/fixtures/worker-process.ts', { ...env, MODE: 'crash-first' });
    await first.waitForLine(/^READY$/);
    const started = await agents.startRun('durable', 'Leave a mark, then finish');
    // What the workers said on the channel, beside what the reader delivered.
    const said: LiveEventMessage[] = [];
    const unsubscribe = channel.subscribeEvents(started.workflowId, (message) => said.push(message));
    const reading = readRun(connection, started.workflowId, channel);
    // The tool has completed and the model is on its second step: kill the worker mid-turn.
    await first.waitForLine(/^MODEL_STEP 2 /);
    first.child.kill('SIGKILL');
    await first.exited;
    start('test/fixtures/worker-process.ts', { ...env, MODE: 'crash-second' });
    const read = await reading;
    // The second worker says the end it logged (the run's result may reach the reader first).
    const types = () => said.map((message) => message.event?.type);
    await expect.poll(() => types().includes('run_completed'), { timeout: 10_000 }).toBe(true);
    unsubscribe();
    console.log(`a turn whose worker was SIGKILLed, read through PostgreSQL: ${read.queries} events queries`);
    expectOneToolCallRun(read.events);
    // Each said once: the second worker did not say the first one's events again (a replay says nothing).
    expect(types().filter((type) => type === 'run_completed')).toHaveLength(1);
    expect(types().filter((type) => type === 'tool_called')).toHaveLength(1);
    expect(read.events.at(-1)).toMatchObject({
      type: 'run_completed',
      payload: { output: 'finished after the restart' },
    });
  }, 90_000);
});
