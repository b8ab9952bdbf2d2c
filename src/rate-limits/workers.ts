import proto from '@temporalio/proto';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { RateLimitedQueue } from './queues.ts';

/**
 * One activity-only worker per rate-limited queue. The server paces the queue, whichever and however
 * many workers poll it: per account, by the queue's default rate per fairness key (the tenant; set
 * here with `UpdateTaskQueueConfig`), or for the whole fleet (`per: 'fleet'`) by the worker's
 * `maxTaskQueueActivitiesPerSecond`. `base` is the main worker's options (connection, namespace,
 * activities, data converter, ...).
 * See https://docs.temporal.io/develop/task-queue-priority-fairness#rate-limiting.
 */
export async function createRateLimitedWorkers(
  queues: Iterable<RateLimitedQueue>,
  base: Omit<WorkerOptions, 'taskQueue' | 'workflowBundle' | 'workflowsPath'> & {
    connection: NativeConnection;
  },
): Promise<Worker[]> {
  const workers: Worker[] = [];
  for (const queue of queues) {
    await setAccountRate(base.connection, base.namespace ?? 'default', queue);
    workers.push(
      await Worker.create({
        ...base,
        taskQueue: queue.taskQueue,
        ...(queue.per === 'fleet' ? { maxTaskQueueActivitiesPerSecond: queue.perSecond } : {}),
      }),
    );
  }
  return workers;
}

/** Sets the queue's rate per fairness key (per account), or clears it for a fleet-wide rate. */
async function setAccountRate(
  connection: NativeConnection,
  namespace: string,
  queue: RateLimitedQueue,
): Promise<void> {
  const perAccount = queue.per === 'account';
  await connection.workflowService.updateTaskQueueConfig({
    namespace,
    taskQueue: queue.taskQueue,
    taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    identity: 'toolkit-agent worker',
    // Without `rateLimit`, the server removes the rate it had.
    updateFairnessKeyRateLimitDefault: {
      reason: `rateLimits["${queue.credentialKey}"]: ${queue.perSecond} a second per ${queue.per}`,
      ...(perAccount ? { rateLimit: { requestsPerSecond: queue.perSecond } } : {}),
    },
  });
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
