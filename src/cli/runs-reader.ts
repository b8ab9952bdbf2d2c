import type { AgentRunHandle } from '../client/agent-client.ts';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import { connectWorkerConnection } from '../connection/connect.ts';
import { resolveTemporalConnection } from '../connection/temporal-options.ts';
import { InMemoryMemoryStore } from '../memory/in-memory.ts';
import { createAgentWorker } from '../worker.ts';
import { installCliRuntime } from './serving.ts';
import type { Target } from './target.ts';

/**
 * A run that completed, stopped or failed carries its events in its result or failure, read with no
 * worker; a running run is read from its workers. Only a closed run that carries none (terminated,
 * timed out, or run by an earlier version) keeps them in workflow state alone, which only a worker
 * can read (a query replays the workflow): for that one this starts a worker that runs workflow code
 * only (no activities, no cache) on the run's task queue while `work` reads.
 */
export async function withReader<T>(
  target: Target,
  encryption: PayloadEncryptionOptions | undefined,
  handle: AgentRunHandle,
  work: () => Promise<T>,
): Promise<T> {
  const description = await handle.workflow.describe();
  if (description.status.name === 'RUNNING' || (await handle.closedEvents())) return work();
  installCliRuntime();
  const connection = await connectWorkerConnection(resolveTemporalConnection(target.temporal));
  try {
    const worker = await createAgentWorker({
      connection,
      temporal: target.temporal,
      ...(encryption ? { encryption } : {}),
      taskQueue: description.taskQueue,
      agents: {},
      memoryStore: new InMemoryMemoryStore(),
      ...(process.env.TOOLKIT_AGENT_WORKFLOW_BUNDLE
        ? { workflowBundle: { codePath: process.env.TOOLKIT_AGENT_WORKFLOW_BUNDLE } }
        : {}),
      workerOptions: { enableNonLocalActivities: false, maxCachedWorkflows: 0 },
    });
    return await worker.runUntil(work);
  } finally {
    await connection.close();
  }
}
