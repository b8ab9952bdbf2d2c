import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { AgentClient } from '../src/client/agent-client.ts';
import { EmbeddedTemporalServer } from '../src/embedded/dev-server.ts';
import { InMemoryMemoryStore } from '../src/memory/in-memory.ts';
import { createAgentWorker, type AgentDefinition, type AgentWorkerOptions } from '../src/worker.ts';

/** The embedded server, a worker serving `agents` on a task queue of its own, and a client. */
export async function startBenchWorker(
  agents: Record<string, AgentDefinition>,
  workerOptions?: AgentWorkerOptions['workerOptions'],
) {
  const server = await EmbeddedTemporalServer.start();
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const taskQueue = `bench-${randomUUID()}`;
  const memoryStore = new InMemoryMemoryStore();
  const worker = await createAgentWorker({
    connection: nativeConnection,
    taskQueue,
    memoryStore,
    agents,
    ...(workerOptions ? { workerOptions } : {}),
  });
  const running = worker.run();
  const client = new Client({ connection });
  return {
    /** The embedded server's address, for workers in other processes. */
    address: server.address,
    client,
    taskQueue,
    memoryStore,
    agents: new AgentClient({ client, taskQueue }),
    async stop(): Promise<void> {
      worker.shutdown();
      await running;
      await connection.close();
      await nativeConnection.close();
      await server.close();
    },
  };
}
