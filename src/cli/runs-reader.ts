import type { AgentRunHandle } from '../client/agent-client.ts';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import { connectWorkerConnection } from '../connection/connect.ts';
import { resolveTemporalConnection } from '../connection/temporal-options.ts';
import { InMemoryMemoryStore } from '../memory/in-memory.ts';
import { createAgentWorker } from '../worker.ts';
import { installCliRuntime } from './serving.ts';
import type { Target } from './target.ts';

/**
 * A finished run's events live in its workflow state, which only a worker can read (a query
 * replays the workflow). For a closed run this starts a worker that runs workflow code only (no
 * activities, no cache) on the run's task queue while `work` reads, so no agent worker is needed.
 */
export async function withReader<T>(
  target: Target,
  encryption: PayloadEncryptionOptions | undefined,
  handle: AgentRunHandle,
  work: () => Promise<T>,
): Promise<T> {
  const description = await handle.workflow.describe();
  if (description.status.name === 'RUNNING') return work();
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
