import type { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient } from '../client/agent-client.ts';
import { connectWorkerConnection } from '../connection/connect.ts';
import { resolveTemporalConnection } from '../connection/temporal-options.ts';
import type { MemoryStore } from '../memory/types.ts';
import { installWorkerRuntime, resolveLogLevel } from '../runtime-log.ts';
import type { WorkerDeployment } from '../deploy/worker-deployment.ts';
import { createAgentWorker } from '../worker.ts';
import { credentialStoreOf, taskQueueOf, type LoadedConfig } from './config.ts';
import { memoryStoreOf } from './memory-store.ts';
import { resolveTarget, type Target, type TargetOptions } from './target.ts';

/** A connected client for the config's agents and, unless turned off, a worker serving them in this process. */
export interface Serving {
  target: Target;
  agents: AgentClient;
  taskQueue: string;
  memoryStore: MemoryStore;
  worker: Worker | undefined;
  /** Rejects when the worker stops on its own. */
  running: Promise<void>;
  close(): Promise<void>;
}

/**
 * A quiet Temporal runtime that leaves Ctrl-C to the CLI (it cancels a run; the runtime would stop
 * the worker), logging one line per entry (never a block in the middle of the live view) at WARN or
 * `TOOLKIT_AGENT_LOG_LEVEL`.
 */
export function installCliRuntime(): void {
  installWorkerRuntime({ level: resolveLogLevel(undefined, 'WARN'), oneLine: true, shutdownSignals: [] });
}

/** Starts what `run`, `chat` and `worker` need. Close it when done (it stops the worker and what it started). */
export async function serve(
  loaded: LoadedConfig,
  options: TargetOptions & { worker: boolean; temporary: boolean; deployment?: WorkerDeployment },
): Promise<Serving> {
  // Only a worker needs Temporal's native runtime; installed without one, its log forwarding would
  // keep the process alive after a `--no-worker` command is done.
  if (options.worker) installCliRuntime();
  const target = await resolveTarget(options, loaded.config, options.temporary);
  const cleanup: Array<() => Promise<void>> = [() => target.release()];
  const closeAll = async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
  };
  try {
    const taskQueue = taskQueueOf(loaded);
    const memory = memoryStoreOf(loaded.config);
    const memoryStore = memory.store;
    cleanup.push(() => memory.close());
    let worker: Worker | undefined;
    let workerConnection: NativeConnection | undefined;
    let running: Promise<void> = new Promise(() => undefined);
    if (options.worker) {
      const credentialStore = credentialStoreOf(loaded.config);
      const connection = await connectWorkerConnection(resolveTemporalConnection(target.temporal));
      cleanup.push(() => connection.close());
      workerConnection = connection;
      const bundle = process.env.TOOLKIT_AGENT_WORKFLOW_BUNDLE;
      const created = await createAgentWorker({
        connection,
        temporal: target.temporal,
        ...(loaded.config.encryption ? { encryption: loaded.config.encryption } : {}),
        taskQueue,
        memoryStore,
        ...(loaded.config.usageStore ? { usageStore: loaded.config.usageStore } : {}),
        ...(loaded.config.quotas ? { quotas: loaded.config.quotas } : {}),
        agents: Object.fromEntries(
          Object.entries(loaded.config.agents).map(([name, agent]) => [
            name,
            { ...agent, credentialStore: agent.credentialStore ?? credentialStore },
          ]),
        ),
        ...(bundle ? { workflowBundle: { codePath: bundle } } : {}),
        // A version only for `worker` (its flags or the environment, read there): the worker that
        // `run` and `chat` start in-process serves their own runs, unversioned.
        deployment: options.deployment ?? false,
      });
      worker = created;
      running = created.run();
      cleanup.push(async () => {
        if (created.getState() === 'RUNNING') created.shutdown();
        await running.catch(() => undefined);
      });
    }
    // With a worker here, the client shares its connection: runs start eagerly on it.
    const agents = await AgentClient.connect({
      ...(workerConnection ? { connection: workerConnection } : {}),
      address: target.address,
      namespace: target.namespace,
      taskQueue,
    });
    cleanup.push(() => agents.close());
    return { target, agents, taskQueue, memoryStore, worker, running, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
