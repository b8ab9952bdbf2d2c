/** The worker: runs the agents' workflows and activities (models, tools) on the task queue. */
import { createAgentWorker } from 'toolkit-agent';
import { agents, TASK_QUEUE } from './agents.ts';

/** Serves until `worker.shutdown()`; resolves when it stopped. */
export async function startWorker(address: string) {
  const worker = await createAgentWorker({
    temporal: { address },
    taskQueue: TASK_QUEUE,
    agents: await agents(),
    logLevel: 'WARN',
  });
  const stopped = worker.run();
  // Ctrl-C already stops it (Temporal's runtime handles the signal): stop only a running worker.
  const stop = () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  return { stop, stopped };
}
