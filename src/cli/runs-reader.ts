import type { AgentRunHandle } from '../client/agent-client.ts';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import { connectWorkerConnection } from '../connection/connect.ts';
import { resolveTemporalConnection } from '../connection/temporal-options.ts';
import { InMemoryMemoryStore } from '../memory/in-memory.ts';
import { createAgentWorker } from '../worker.ts';
import { installCliRuntime } from './serving.ts';
import type { Target } from './target.ts';

/**
 * A run that closed with a result carries its events in it, read with no worker; so is a running
 * run (its workers answer). Only a closed run whose result has no events (it failed, was terminated,
 * or ran on an earlier version) keeps them in workflow state, which only a worker can read (a query
 * replays the workflow): for that one this starts a worker that runs workflow code only (no
 * activities, no cache) on the run's task queue while `work` reads.
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
