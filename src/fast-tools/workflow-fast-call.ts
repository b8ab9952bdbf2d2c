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

// Plans from workers older than these settings lack them: the defaults then (agent-definition.ts).
const DEFAULT_BUDGET_MS = 2_000;
const DEFAULT_ATTEMPTS = 2;

type ToolInvoker = Pick<AgentActivities, 'invokeTool'>;

/**
 * Calls of fast tools (docs/connectors.md, "Fast tools"): each runs as a local activity, inside the
 * workflow task that asked for it, so no round trip through the server. Its budget is both its
 * start-to-close and its schedule-to-close, so its retries (a few, quickly) stay inside the budget
 * and a call that overruns is not retried locally: it is run again as a normal activity, whose
 * writes count on from the local attempts. A worker that dies during a local call is noticed by the
 * workflow task timeout, and the call runs once more.
 *
 * Which calls are fast is part of the plan `resolveRun` returned, which history records: a history
 * from before fast tools has no `fastTools` in its plan and replays its calls as the activities it
 * scheduled, so no `patched()` marker is needed (and none costs a search-attribute write per run).
 */
export class FastToolCalls {
  readonly #local: ToolInvoker;
  readonly #normal: ToolInvoker;
  readonly #attempts: number;

  constructor(timeouts: RunTimeouts, normal: ToolInvoker) {
    const budget = timeouts.fastToolStartToCloseMs ?? DEFAULT_BUDGET_MS;
    this.#attempts = timeouts.fastToolMaxAttempts ?? DEFAULT_ATTEMPTS;
    this.#normal = normal;
    this.#local = proxyLocalActivities<AgentActivities>({
      // A stop waits until the call has really stopped, so what it stores stays final (as for activities).
      cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
      startToCloseTimeout: budget,
      scheduleToCloseTimeout: budget,
      retry: {
        maximumAttempts: this.#attempts,
        initialInterval: '50 milliseconds',
        maximumInterval: '500 milliseconds',
      },
    });
  }

  /**
   * Runs the call locally. A tool's own failure arrives as the `ActivityFailure` a normal activity's
   * would; an overrun falls back to the normal activity.
   */
  async invoke(input: InvokeToolInput): Promise<ToolOutcome> {
    try {
      return await this.#local.invokeTool(input);
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (overran(error)) return this.#normal.invokeTool({ ...input, attemptBase: this.#attempts });
      throw asActivityFailure(error);
    }
  }
}

/** Whether the local call ended because it ran past its budget (anywhere in the failure's causes). */
function overran(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof TimeoutFailure) return true;
  }
  return false;
}

/** A local activity's failure arrives as its cause itself: wrapped, it reads as a normal activity's. */
function asActivityFailure(error: unknown): unknown {
  if (error instanceof ActivityFailure || !(error instanceof ApplicationFailure)) return error;
  const state = error.nonRetryable ? RetryState.NON_RETRYABLE_FAILURE : RetryState.MAXIMUM_ATTEMPTS_REACHED;
  return new ActivityFailure(error.message, 'invokeTool', undefined, state, undefined, error);
}
