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
 * grows with the heap (about 2,400 on a 4 GB heap), and each cached chat session holds about
 * 320–460 KB of resident memory: 3,000 idle sessions held 1.3 GB. A session evicted from the cache
 * replays its history since it last continued as new (it keeps only counters) on its next message: see
 * bench/open-sessions.ts and docs/production.md, "Many open sessions".
 */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 1_000;

/** {@link AGENT_WORKER_SLOTS} unless the options bring a tuner (which cannot be combined with slot counts). */
export function concurrencyDefaults(options: Partial<WorkerOptions> | undefined): Partial<WorkerOptions> {
  return options?.tuner ? {} : AGENT_WORKER_SLOTS;
}
