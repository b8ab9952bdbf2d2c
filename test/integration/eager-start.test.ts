import { randomUUID } from 'node:crypto';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { createAgentWorker } from '../../src/worker.ts';

/**
 * A run whose first workflow task the server handed back in the start call's reply was scheduled
 * and started in one transaction: its WorkflowTaskStarted event has the next task id after its
 * WorkflowTaskScheduled. A task dispatched through the task queue is started by a later poll.
 */
async function startedInTheStartCall(agents: AgentClient, workflowId: string): Promise<boolean> {
  const { events } = await agents.client.workflow.getHandle(workflowId).fetchHistory();
  const [, scheduled, started] = events!;
  expect(started!.workflowTaskStartedEventAttributes).toBeTruthy();
  return Number(started!.taskId) === Number(scheduled!.taskId) + 1;
}

describe('eager start', () => {
  const address = inject('temporalAddress');
  const taskQueue = `eager-${randomUUID()}`;
  let workerConnection: NativeConnection;
  let stopWorker: () => Promise<void>;

  beforeAll(async () => {
    workerConnection = await NativeConnection.connect({ address });
    const worker = await createAgentWorker({
      connection: workerConnection,
      taskQueue,
      memoryStore: new InMemoryMemoryStore(),
      workflowBundle: { codePath: inject('workflowBundlePath') },
      agents: {
        greeter: { llm: new ScriptedModel([{ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' }]) },
      },
    });
    const running = worker.run();
    stopWorker = async () => {
      worker.shutdown();
      await running;
    };
  });

  afterAll(async () => {
    await stopWorker();
    await workerConnection.close();
  });

  it("starts runs on the worker in this process when the client shares the worker's connection", async () => {
    const agents = await AgentClient.connect({ connection: workerConnection, address, taskQueue });
    const handle = await agents.start('greeter', 'Say one.');
    expect((await handle.result()).output).toBe('One.');
    expect(await startedInTheStartCall(agents, handle.workflowId)).toBe(true);
    // The connection was lent: closing the client leaves it open for the worker and others.
    await agents.close();
    const again = await AgentClient.connect({ connection: workerConnection, address, taskQueue });
    expect((await again.run('greeter', 'Say two.')).output).toBe('Two.');
  });

  it('dispatches through the task queue when no worker of the queue shares the connection', async () => {
    const elsewhere = await NativeConnection.connect({ address });
    try {
      const agents = await AgentClient.connect({ connection: elsewhere, address, taskQueue });
      const handle = await agents.start('greeter', 'Say three.');
      expect((await handle.result()).output).toBe('Three.');
      expect(await startedInTheStartCall(agents, handle.workflowId)).toBe(false);
    } finally {
      await elsewhere.close();
    }
  });
});
