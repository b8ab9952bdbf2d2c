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

/**
 * How many workflows (runs, chat sessions) an agent worker keeps in its workflow cache, where
 * neither `maxCachedWorkflows` nor `workerOptions.maxCachedWorkflows` says. Temporal's own default
 * grows with the heap (about 2,400 on a 4 GB heap), and each cached chat session holds about 0.5 MB
 * of resident memory: with 1,000 cached a worker held 770 MB, and 3,000 open sessions (2,000 of them
 * evicted) no more. A session evicted from the cache replays its run's history on its next message;
 * a session continues as new every 100 events, so that replay covers a few turns: see
 * bench/open-sessions.ts and docs/production.md, "Many open sessions".
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 1_000;

/** {@link AGENT_WORKER_SLOTS} unless the options bring a tuner (which cannot be combined with slot counts). */
export function concurrencyDefaults(options: Partial<WorkerOptions> | undefined): Partial<WorkerOptions> {
  return options?.tuner ? {} : AGENT_WORKER_SLOTS;
}
