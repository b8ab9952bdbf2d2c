import {
  ActivityCancellationType,
  patched,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.ts';
import type { RunTimeouts } from '../common/run.ts';
import { accountPriorityOption, runPriorityOption } from '../fairness/workflow-priority.ts';

/** Short attempts, so a worker that dies in one is replaced in seconds, and enough of them that a few crashes in a row do not fail the run. */
const QUICK = {
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 10, initialInterval: '200 milliseconds', maximumInterval: '5 seconds' },
} as const;

/** Setting up a turn (`loadSession`) and asking whether a call needs approval, before the agent's own timeouts are known. */
export const quickActivities = proxyActivities<AgentActivities>(QUICK);

/**
 * `resolveRun` as a local activity: it runs inside the workflow task that asked for it, on the same
 * worker, which saves a round trip through the server per turn (`npm run bench`). A worker that dies
 * in it is noticed by the workflow task timeout (10 s) and another worker runs it again; its writes
 * are the same on every attempt.
 */
const localQuickActivities = proxyLocalActivities<AgentActivities>(QUICK);

/** Marks histories whose `resolveRun` is a local activity; older histories replay the activity they recorded. */
export const RESOLVE_RUN_LOCALLY = 'resolve-run-as-local-activity';

/** Marks histories that record runs in the usage ledger; older histories replay without those steps. */
export const USAGE_LEDGER = 'usage-ledger';

/**
 * Marks histories whose turns open with `openRun` (the run resolved and its first model step taken
 * in one activity). It implies the ledger and local `resolveRun` (for handoffs), so a new run records
 * this one marker; older histories replay the `resolveRun` they recorded.
 */
export const OPENING_STEP = 'opening-step';

/** Whether this turn opens with `openRun`: asked once, at the turn's start. */
export function opensWithStep(): boolean {
  return patched(OPENING_STEP);
}

/**
 * Where this turn's `resolveRun` runs (a handoff's, or the turn's own in a history from before the
 * opening step): locally, unless the history being replayed scheduled it as an activity. The ledger
 * came after local `resolveRun`, and the opening step after the ledger, so a history with either
 * marker resolves locally too, and a new run records one marker, not two or three (each costs a
 * history event and a search-attribute write). Histories recorded with both older markers must see
 * both asked for while they replay; asked while replaying, `patched` only matches a recorded marker
 * and writes nothing.
 */
export function resolveRunActivities(): typeof quickActivities {
  if (patched(OPENING_STEP)) return localQuickActivities;
  if (!patched(USAGE_LEDGER)) return patched(RESOLVE_RUN_LOCALLY) ? localQuickActivities : quickActivities;
  if (workflowInfo().unsafe.isReplaying) patched(RESOLVE_RUN_LOCALLY);
  return localQuickActivities;
}

/** The ledger's local activities (`recordRun`, `releaseRun`), or undefined when replaying a history from before the ledger. */
export function ledgerActivities(): typeof quickActivities | undefined {
  return patched(OPENING_STEP) || patched(USAGE_LEDGER) ? localQuickActivities : undefined;
}

/** Store writes the workflow decided on, with the agent's `storeStartToCloseMs` and `storeMaxAttempts`. */
export function storeActivities(timeouts: RunTimeouts): ReturnType<typeof proxyActivities<AgentActivities>> {
  return proxyActivities<AgentActivities>({
    ...runPriorityOption(),
    // Plans from workers older than these settings lack them: the defaults then.
    startToCloseTimeout: timeouts.storeStartToCloseMs ?? 10_000,
    retry: { ...QUICK.retry, maximumAttempts: timeouts.storeMaxAttempts ?? QUICK.retry.maximumAttempts },
  });
}

// A stop waits until cancelled activities have really stopped, so what they store stays final.
// Retries back off to at most 10 s: a step whose worker died is retried within seconds.
const STEP = { cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED } as const;
/** A step's first retry waits this long (unless the provider said how long: Retry-After). */
export const FIRST_RETRY_MS = 1_000;
const STEP_RETRY = { initialInterval: FIRST_RETRY_MS, maximumInterval: '10 seconds' } as const;

/** Model steps (and compactions), with the agent's model timeouts. */
export function modelActivities(timeouts: RunTimeouts): ReturnType<typeof proxyActivities<AgentActivities>> {
  return proxyActivities<AgentActivities>({
    ...STEP,
    ...runPriorityOption(),
    startToCloseTimeout: timeouts.modelStartToCloseMs,
    heartbeatTimeout: timeouts.modelHeartbeatMs,
    retry: { ...STEP_RETRY, maximumAttempts: timeouts.modelMaxAttempts },
  });
}

/**
 * Tool calls, with the agent's tool timeouts; `onQueue`: on the task queue of a rate-limited
 * provider, paced per account (the run's tenant).
 */
export function toolActivities(
  timeouts: RunTimeouts,
  onQueue?: { taskQueue: string; tenant: string | undefined },
): ReturnType<typeof proxyActivities<AgentActivities>> {
  return proxyActivities<AgentActivities>({
    ...STEP,
    ...(onQueue
      ? { taskQueue: onQueue.taskQueue, ...accountPriorityOption(onQueue.tenant) }
      : runPriorityOption()),
    startToCloseTimeout: timeouts.toolStartToCloseMs,
    // Older workers' plans have no toolHeartbeatMs: no heartbeat timeout then, as before.
    ...(timeouts.toolHeartbeatMs ? { heartbeatTimeout: timeouts.toolHeartbeatMs } : {}),
    retry: { ...STEP_RETRY, maximumAttempts: timeouts.toolMaxAttempts },
  });
}

/**
 * A turn's opening step: `openRun` resolves the run, then takes its first model step. Set before
 * the agent's timeouts are known: heartbeats notice a dead worker within seconds (the model step
 * heartbeats at least every second), the activity bounds the model step by the agent's model timeout
 * itself, and a failure of the step is not retried here: the workflow takes it with the agent's
 * retries. Attempts retry what fails before that (resolving the run), as `resolveRun`'s do.
 */
export function openingActivities(): ReturnType<typeof proxyActivities<AgentActivities>> {
  return proxyActivities<AgentActivities>({
    ...STEP,
    ...runPriorityOption(),
    startToCloseTimeout: '1 hour',
    heartbeatTimeout: '10 seconds',
    retry: QUICK.retry,
  });
}
