import { Worker, type WorkerOptions } from '@temporalio/worker';
import type { RateLimitedQueue } from './queues.ts';

/**
 * One activity-only worker per rate-limited queue, polling it with Temporal's
 * `maxTaskQueueActivitiesPerSecond`: the server dispatches no more tasks a second from that queue,
 * whichever and however many workers poll it, so the limit holds for the whole fleet.
 * `base` is the main worker's options (connection, namespace, activities, data converter, ...).
 * See https://typescript.temporal.io/api/interfaces/worker.WorkerOptions#maxtaskqueueactivitiespersecond.
 */
export async function createRateLimitedWorkers(
  queues: Iterable<RateLimitedQueue>,
  base: Omit<WorkerOptions, 'taskQueue' | 'workflowBundle' | 'workflowsPath'>,
): Promise<Worker[]> {
  const workers: Worker[] = [];
  for (const queue of queues) {
    workers.push(
      await Worker.create({
        ...base,
        taskQueue: queue.taskQueue,
        maxTaskQueueActivitiesPerSecond: queue.perSecond,
      }),
    );
  }
  return workers;
}

/**
 * The main worker, with its rate-limited workers attached: `run()` runs them all and ends when all
 * have stopped (any that stops, by `shutdown()` or by a fatal error, stops the others);
 * `shutdown()` stops them all. So `createAgentWorker` keeps returning one `Worker`.
 */
export function withRateLimitedWorkers(main: Worker, extra: Worker[]): Worker {
  if (extra.length === 0) return main;
  const run = main.run.bind(main);
  const shutdown = main.shutdown.bind(main);
  const stopAll = (): void => {
    if (main.getState() === 'RUNNING') shutdown();
    for (const worker of extra) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  main.shutdown = stopAll;
  main.run = async () => {
    const runs = [run(), ...extra.map((worker) => worker.run())].map((running) => running.finally(stopAll));
    const failed = (await Promise.allSettled(runs)).find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  };
  return main;
}
