import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { inject } from 'vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentClient } from '../../src/client/agent-client.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { createAgentWorker } from '../../src/worker.ts';

/** A tool that works for a while and says whether it finished or was cancelled. */
class SlowTool extends BaseConnectorTool {
  readonly name = 'slow';
  readonly description = 'Works for a while';
  readonly parameters = z.object({});
  readonly outcomes: string[] = [];
  #started: () => void = () => undefined;
  readonly started = new Promise<void>((resolve) => (this.#started = resolve));
  async run(context: ToolContext): Promise<ToolOutput> {
    this.#started();
    try {
      await sleep(1500, undefined, { signal: context.signal });
      this.outcomes.push('finished');
    } catch {
      this.outcomes.push('cancelled');
    }
    return { text: 'done', metadata: {} };
  }
}

describe('createAgentWorker', () => {
  let connection: Connection;
  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => connection?.close());

  it('closes the connection it opened itself when the worker stops, and not one it was given', async () => {
    const own = await createAgentWorker({
      address: inject('temporalAddress'),
      taskQueue: `own-${randomUUID()}`,
      agents: { idle: { llm: new ScriptedModel([]) } },
      memoryStore: new InMemoryMemoryStore(),
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    const running = own.run();
    await sleep(100);
    own.shutdown();
    await running;
    await expect(own.connection!.close()).rejects.toThrow(/already closed/);

    const given = await NativeConnection.connect({ address: inject('temporalAddress') });
    const shared = await createAgentWorker({
      connection: given,
      taskQueue: `given-${randomUUID()}`,
      agents: { idle: { llm: new ScriptedModel([]) } },
      memoryStore: new InMemoryMemoryStore(),
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    const servingShared = shared.run();
    await sleep(100);
    shared.shutdown();
    await servingShared;
    await given.close(); // still open: the caller closes what it passed in
  });

  it('lets a running tool call finish when it shuts down (grace time), instead of cancelling it', async () => {
    const tool = new SlowTool();
    const taskQueue = `grace-${randomUUID()}`;
    const worker = await createAgentWorker({
      address: inject('temporalAddress'),
      taskQueue,
      agents: {
        slow: {
          llm: new ScriptedModel([{ toolCalls: [{ name: 'slow', args: {} }] }, { text: 'ok' }]),
          tools: [tool],
        },
      },
      memoryStore: new InMemoryMemoryStore(),
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    const running = worker.run();
    const agents = new AgentClient({ client: new Client({ connection }), taskQueue });
    const handle = await agents.start('slow', 'work');
    await tool.started;
    worker.shutdown();
    await running;
    expect(tool.outcomes).toEqual(['finished']);
    await handle.workflow.terminate('test over');
  });
});
