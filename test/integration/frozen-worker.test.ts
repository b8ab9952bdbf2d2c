import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

describe('dead and frozen workers', () => {
  let dir: string;
  let connection: Connection;
  const processes: NodeProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'frozen-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const p of processes) {
      p.child.kill('SIGCONT');
      p.child.kill('SIGKILL');
    }
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a worker frozen mid-step (SIGSTOP) and thawed after another finished the step does not rewrite the conversation', async () => {
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: `frozen-${randomUUID()}`,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      MARKER_FILE: join(dir, 'marker'),
      MODE: 'freeze',
    };
    // Few open polls: every poll the frozen worker left open swallows a retry until its timeout.
    const frozen = startNodeProcess('test/fixtures/worker-process.ts', {
      ...env,
      FREEZE_FIRST: '1',
      FEW_POLLS: '1',
    });
    processes.push(frozen);
    await frozen.waitForLine(/^READY$/);
    const agents = new AgentClient({ client: new Client({ connection }), taskQueue: env.TASK_QUEUE });
    const handle = await agents.start('frozen', 'Wait for the marker');

    await frozen.waitForLine(/^MODEL_STEP 1 /);
    frozen.child.kill('SIGSTOP'); // mid-step: its answer (call_late) is 1.5 s away
    const second = startNodeProcess('test/fixtures/worker-process.ts', env);
    processes.push(second);
    // The retry on the second worker answered call_accepted, and the run went on to that tool.
    await second.waitForLine(/^TOOL_WAITING$/);
    frozen.child.kill('SIGCONT');
    // The frozen attempt wakes, finishes its model call and writes position 1 (attempt 1); so do the
    // retries its open polls had taken meanwhile. All of them answered call_late.
    await frozen.waitForLine(/^APPENDED 1 1$/);
    await sleep(1000);
    await writeFile(env.MARKER_FILE, 'go');

    const result = await handle.result();
    expect(result.output).toBe('assistant asked call_accepted; results for call_accepted');
    const store = new SqliteMemoryStore({ path: env.MEMORY_DB });
    const stored = await store.read(handle.workflowId);
    await store.close();
    expect(
      stored.map((m) => [m.role, m.role === 'assistant' ? (m.toolCalls?.[0]?.id ?? m.content) : '']),
    ).toEqual([
      ['user', ''],
      ['assistant', 'call_accepted'],
      ['tool', ''],
      ['assistant', 'assistant asked call_accepted; results for call_accepted'],
    ]);
    expect(stored[2]).toMatchObject({ toolCallId: 'call_accepted' });
  }, 180_000);

  it('notices a worker killed mid-tool within seconds (the tool heartbeats), and another worker runs the call', async () => {
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: `tool-crash-${randomUUID()}`,
      MEMORY_DB: join(dir, 'tool-crash.sqlite'),
      MARKER_FILE: join(dir, 'tool-crash-marker'),
      MODE: 'freeze',
    };
    const first = startNodeProcess('test/fixtures/worker-process.ts', env);
    processes.push(first);
    await first.waitForLine(/^READY$/);
    const agents = new AgentClient({ client: new Client({ connection }), taskQueue: env.TASK_QUEUE });
    const handle = await agents.start('frozen', 'Wait for the marker');
    await first.waitForLine(/^TOOL_WAITING$/);
    first.child.kill('SIGKILL');
    await first.exited;
    await writeFile(env.MARKER_FILE, 'go');
    const second = startNodeProcess('test/fixtures/worker-process.ts', env);
    processes.push(second);
    // Without a heartbeat timeout the call would wait out its 5-minute start-to-close timeout.
    await second.waitForLine(/^TOOL_WAITING$/);
    expect((await handle.result()).output).toBe('assistant asked call_accepted; results for call_accepted');
  }, 120_000);
});
