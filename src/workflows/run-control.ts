import { CancellationScope, condition } from '@temporalio/workflow';
import type { TextDeltaSignal } from '../common/control.ts';
import type { StopReason } from '../common/run.ts';
import type { RunningSubRun } from '../subagents/types.ts';
import { Approvals } from './approvals.ts';
import { Authorizations } from './authorization-wait.ts';
import { FrontendCalls } from '../frontend-tools/workflow-frontend-calls.ts';

/** Why work was stopped from outside the loop: a cancel request or the deadline. */
export interface StopRequest {
  reason: Extract<StopReason, 'cancelled' | 'deadline' | 'authorization_timeout'>;
  message: string;
}

/** What the control needs of the loop it steers: where live text goes. */
export interface ControlledLoop {
  acceptTextDelta(delta: TextDeltaSignal): void;
}

/**
 * The outside controls of one run (or one chat turn): a stop request, the deadline, and the tool
 * calls waiting for approval. The loop runs its activities inside {@link RunControl.run}'s
 * cancellation scope; a stop cancels that scope, so in-flight activities are cancelled (their
 * `AbortSignal` fires) and waits for approval end.
 */
export class RunControl {
  readonly approvals = new Approvals();
  /** Tool calls waiting for a user's grant (mid-run authorization). */
  readonly authorizations = new Authorizations();
  /** Frontend tool calls waiting for the client's result. */
  readonly frontendCalls = new FrontendCalls();
  /** The loop currently running under this control (a deep run has one per phase). */
  loop: ControlledLoop | undefined;
  /** Child runs (sub-agents) running now, by workflow id: readers follow them, approvals reach them. */
  readonly subRuns = new Map<string, RunningSubRun>();
  /** When the deadline stops the run (epoch ms, workflow time); undefined without one. */
  deadlineAt: number | undefined;
  #stop: StopRequest | undefined;
  #finished = false;
  #deadline = false;
  readonly #scope = new CancellationScope();

  get stopRequest(): StopRequest | undefined {
    return this.#stop;
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** Runs `work` in the scope a stop cancels. */
  run<T>(work: () => Promise<T>): Promise<T> {
    return this.#scope.run(work);
  }

  /** Asks the run to stop; the first request wins. Cancels in-flight work. */
  requestStop(reason: StopRequest['reason'], message: string): void {
    if (this.#stop || this.#finished) return;
    this.#stop = { reason, message };
    this.#scope.cancel();
  }

  /**
   * Stops the run with `deadline` once `timeoutMs` have passed since `from` (default: now; a workflow
   * timer, cancelled at the end), or at once when it has `passed`. Only the first call counts: a deep
   * run's deadline covers all its phases.
   */
  watchDeadline(timeoutMs: number | undefined, from = Date.now(), passed = false): void {
    if (timeoutMs === undefined || this.#deadline) return;
    this.#deadline = true;
    this.deadlineAt = from + timeoutMs;
    const message = `The run passed its deadline of ${Math.round(timeoutMs / 100) / 10} s.`;
    const left = this.deadlineAt - Date.now();
    // Passed already (the opening step ran out of time before the workflow knew the deadline).
    if (passed || left <= 0) return this.requestStop('deadline', message);
    void condition(() => this.#finished || this.#stop !== undefined, left).then(
      (ended) => {
        if (!ended) this.requestStop('deadline', message);
      },
      () => undefined, // the workflow itself was cancelled: nothing left to stop
    );
  }

  /** The run ended: no stop applies any more, and the deadline timer is cancelled. */
  finish(): void {
    this.#finished = true;
  }
}
