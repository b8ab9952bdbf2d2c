import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import type { AgentResult } from '../../src/common/run.ts';
import { ONE_TOOL_CALL_RUN } from './helpers.ts';
import { runAdderInProcesses, type NodeProcess } from './processes.ts';

describe('a worker process and a separate client process', () => {
  const processes: NodeProcess[] = [];
  let dir: string | undefined;
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lets a client start a run by agent name and stream its events', async () => {
    dir = await mkdtemp(join(tmpdir(), 'distributed-'));
    const common = { TEMPORAL_ADDRESS: inject('temporalAddress'), TASK_QUEUE: `dist-${randomUUID()}` };
    const { worker, client } = await runAdderInProcesses(common, {
      workflowBundle: inject('workflowBundlePath'),
      memoryDb: join(dir, 'memory.sqlite'),
      processes,
    });
    expect(await client.exited).toBe(0);

    const parsed = client.lines.map(
      (line) => JSON.parse(line) as { event?: AgentEvent; result?: AgentResult },
    );
    const events = parsed.flatMap((p) => (p.event ? [p.event] : []));
    expect(events.map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    expect(events[3]!.payload).toMatchObject({ tool: 'add', call_id: 'add_1', output: '5' });
    expect(parsed.at(-1)!.result).toMatchObject({
      output: '2 + 3 = 5',
      metadata: { stop_reason: 'completed' },
    });
    // The model ran in the worker process, with the prompt the client sent.
    expect(worker.lines.find((l) => l.startsWith('MODEL_STEP 1 '))).toContain('What is 2 + 3?');
  });
});
