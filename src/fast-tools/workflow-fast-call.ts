import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  proxyLocalActivities,
  TimeoutFailure,
} from '@temporalio/workflow';
import { RetryState } from '@temporalio/common';
import type { AgentActivities } from '../activities/index.ts';
import type { InvokeToolInput, RunTimeouts, ToolOutcome } from '../common/run.ts';

// Plans from workers older than this setting lack it: the default then (agent-defaults.ts).
const DEFAULT_BUDGET_MS = 2_000;

/** A fast call's budget: its one local attempt, or its run inside the model step that carries it. */
export function fastCallBudgetMs(timeouts: RunTimeouts): number {
  return timeouts.fastToolStartToCloseMs ?? DEFAULT_BUDGET_MS;
}

type ToolInvoker = Pick<AgentActivities, 'invokeTool'>;

/**
 * Calls of fast tools (docs/connectors.md, "Fast tools"): each runs as a local activity, inside the
 * workflow task that asked for it, so no round trip through the server. It gets one attempt within
 * its budget: a call that overruns it (or fails in a way a retry may cure) is run again as a normal
 * activity, with the agent's tool retries, whose writes count on from the local attempt. So a slow
 * tool is never retried locally. A worker that dies during a local call is noticed by the workflow
 * task timeout, and the call runs once more.
 *
 * Which calls are fast is part of the plan `resolveRun` returned, which history records: a history
 * from before fast tools has no `fastTools` in its plan and replays its calls as the activities it
 * scheduled, so no `patched()` marker is needed (and none costs a search-attribute write per run).
 */
export class FastToolCalls {
  readonly #local: ToolInvoker;
  readonly #normal: ToolInvoker;

  constructor(timeouts: RunTimeouts, normal: ToolInvoker) {
    const budget = fastCallBudgetMs(timeouts);
    this.#normal = normal;
    this.#local = proxyLocalActivities<AgentActivities>({
      // A stop waits until the call has really stopped, so what it stores stays final (as for activities).
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      startToCloseTimeout: budget,
      scheduleToCloseTimeout: budget,
      retry: { maximumAttempts: 1 },
    });
  }

  /**
   * Runs the call locally. A tool's own answer (a failure no retry cures) arrives as the
   * `ActivityFailure` a normal activity's would; an overrun or a retryable failure falls back.
   */
  async invoke(input: InvokeToolInput): Promise<ToolOutcome> {
    try {
      return await this.#local.invokeTool(input);
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (retryable(error))
        return this.#normal.invokeTool({ ...input, attemptBase: (input.attemptBase ?? 0) + 1 });
      throw asActivityFailure(error);
    }
  }
}

/** Whether the local call overran its budget or failed in a way a retry may cure. */
function retryable(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof TimeoutFailure) return true;
    if (cause instanceof ApplicationFailure) return !cause.nonRetryable;
  }
  return false;
}

/** A local activity's failure arrives as its cause itself: wrapped, it reads as a normal activity's. */
function asActivityFailure(error: unknown): unknown {
  if (error instanceof ActivityFailure || !(error instanceof ApplicationFailure)) return error;
  return new ActivityFailure(
    error.message,
    'invokeTool',
    undefined,
    RetryState.NON_RETRYABLE_FAILURE,
    undefined,
    error,
  );
}
