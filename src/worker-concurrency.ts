import type { WorkerOptions } from '@temporalio/worker';

/**
 * Slots of an agent worker, where the worker's options set neither these nor a `tuner`. Model steps
 * and tool calls mostly wait on the network, so a worker serving hundreds of concurrent runs (a
 * trigger burst, a schedule) needs more activity slots than Temporal's 100: with 200 runs at once
 * half of them would wait for a slot (bench/floor.ts). Fast tools' local activities get as many.
 */
export const AGENT_WORKER_SLOTS = {
  maxConcurrentActivityTaskExecutions: 500,
  maxConcurrentLocalActivityExecutions: 500,
} as const;

/** {@link AGENT_WORKER_SLOTS} unless the options bring a tuner (which cannot be combined with slot counts). */
export function concurrencyDefaults(options: Partial<WorkerOptions> | undefined): Partial<WorkerOptions> {
  return options?.tuner ? {} : AGENT_WORKER_SLOTS;
}
