import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { AgentDefinition } from '../agent/definition.ts';
import { AgentClient } from '../client/agent-client.ts';
import { encryptionDataConverter } from '../codec/aes-gcm-codec.ts';
import { connectWorkerConnection } from '../connection/connect.ts';
import {
  resolveTemporalConnection,
  type ResolvedTemporalConnection,
  type TemporalConnectionOptions,
} from '../connection/temporal-options.ts';
import { acquireEmbeddedServer, type EmbeddedServerOptions } from '../embedded/dev-server.ts';
import { SqliteMemoryStore } from '../memory/sqlite.ts';
import { defaultMemoryPath } from '../paths.ts';
import { createAgentWorker, type AgentWorkerOptions } from '../worker.ts';

/** Where the agents a protocol server offers run: the settings `serveMcp` and `serveA2a` share. */
export interface AgentHostOptions {
  /** The agents to offer: the same definitions `createAgentWorker` takes. */
  agents: Record<string, AgentDefinition>;
  /**
   * An existing cluster (profile, address, namespace, API key, TLS) and the task queue to run on.
   * Without it an embedded dev server is started (and shared in this process).
   */
  temporal?: TemporalConnectionOptions & { taskQueue?: string };
  /** Settings of the embedded server (used only without `temporal`). */
  embedded?: EmbeddedServerOptions;
  /** Further settings of the worker that runs the agents (memory store, encryption, workflow bundle, ...). */
  worker?: Omit<
    AgentWorkerOptions,
    'agents' | 'taskQueue' | 'connection' | 'temporal' | 'address' | 'namespace'
  >;
}

/** A worker of the agents in this process and a client whose runs start eagerly on it. */
export interface AgentHost {
  agents: AgentClient;
  /** Stops the worker and closes the connections (runs in flight stay durable). */
  close(): Promise<void>;
}

/** Starts a worker for `options.agents` on `temporal` (or an embedded dev server) and a client for it. */
export async function hostAgents(options: AgentHostOptions, taskQueuePrefix: string): Promise<AgentHost> {
  const cleanup: Array<() => Promise<unknown>> = [];
  const close = async (): Promise<void> => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
  };
  try {
    let resolved: ResolvedTemporalConnection;
    if (options.temporal) {
      resolved = resolveTemporalConnection(options.temporal);
    } else {
      const embedded = await acquireEmbeddedServer(options.embedded);
      cleanup.push(embedded.release);
      resolved = { address: embedded.server.address, namespace: embedded.server.namespace };
    }
    const taskQueue = options.temporal?.taskQueue ?? `${taskQueuePrefix}-${randomUUID()}`;
    const memoryStore = options.worker?.memoryStore ?? new SqliteMemoryStore({ path: defaultMemoryPath() });
    if (!options.worker?.memoryStore) cleanup.push(async () => memoryStore.close?.());
    const workerConnection = await connectWorkerConnection(resolved);
    cleanup.push(() => workerConnection.close());
    const worker = await createAgentWorker({
      ...options.worker,
      agents: options.agents,
      connection: workerConnection,
      namespace: resolved.namespace,
      taskQueue,
      memoryStore,
    });
    const running = worker.run();
    cleanup.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    });
    const dataConverter = encryptionDataConverter(options.worker?.encryption);
    // The worker's connection: runs start eagerly on the worker above.
    const client = new Client({
      connection: workerConnection,
      namespace: resolved.namespace,
      ...(dataConverter ? { dataConverter } : {}),
    });
    return { agents: new AgentClient({ client, taskQueue }), close };
  } catch (error) {
    await close();
    throw error;
  }
}
