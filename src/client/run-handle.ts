import {
  WorkflowFailedError,
  type WorkflowHandle,
  type WorkflowHandleWithFirstExecutionRunId,
} from '@temporalio/client';
import { closedRunEvents, eventsAfter, type AgentEvent } from '../common/events.ts';
import { eventsQuery } from '../common/workflow-definitions.ts';
import type { AgentResult, AgentRunOutput } from '../common/run.ts';
import { RunFailedError } from '../errors.ts';
import { checkedResult } from '../output/result.ts';
import { childEventsOf, withChildEvents } from '../subagents/child-events.ts';
import { parseCursor } from '../subagents/event-cursor.ts';
import { quotaExceededIn } from '../usage/refusal.ts';
import { resolveLiveChannel, type LiveTextChannel } from '../live-text/channel.ts';
import { streamRunEvents, type EventsFrom } from './event-stream.ts';
import { failedRunEvents } from './failed-run.ts';
import { ApprovalControls, RunControls } from './run-controls.ts';

/**
 * A run started through {@link AgentClient}: its result, its events and its controls (cancel,
 * approve, reject, pendingApprovals), from any process. `T` is the type of `result().output`: text,
 * or the object of a structured run (inferred from its `output` schema).
 */
export class AgentRunHandle<T = string> extends ApprovalControls {
  readonly workflow: WorkflowHandle;
  protected readonly controls: RunControls;

  /** The run this client started, when it did: its events are read from it, with no call to find it. */
  readonly #startedRun: { runId?: string };
  /** Where this handle's readers hear the model's text as it is written. */
  readonly #live: LiveTextChannel | undefined;

  /** `liveChannel`: where readers hear the model's text as it is written. Default: this process's; `false`: none. */
  constructor(
    workflow: WorkflowHandle | WorkflowHandleWithFirstExecutionRunId,
    options: { liveChannel?: LiveTextChannel | false } = {},
  ) {
    super();
    this.workflow = workflow;
    this.controls = new RunControls(async () => workflow);
    this.#startedRun = 'firstExecutionRunId' in workflow ? { runId: workflow.firstExecutionRunId } : {};
    this.#live = resolveLiveChannel(options.liveChannel, 'AgentRunHandle');
  }

  /**
   * Stops the run: in-flight model and tool calls are cancelled (their `AbortSignal` fires), calls
   * that did not finish are answered "Cancelled: <reason>" in the stored conversation, a text answer
   * the model was writing is kept as far as it was written, the last event is `run_cancelled`, and {@link AgentRunHandle.result} resolves with `stop_reason: 'cancelled'`.
   * Refused ({@link ControlRefusedError}) when the run has already ended or is stopping.
   */
  cancel(reason?: string): Promise<void> {
    return this.controls.cancel(reason);
  }

  get workflowId(): string {
    return this.workflow.workflowId;
  }

  /**
   * Waits for the run to finish. Rejects with a {@link RunFailedError} naming the root cause when it
   * failed, and with an {@link OutputValidationError} when a structured run ended with `invalid_output`.
   */
  async result(): Promise<AgentResult<T>> {
    let result: AgentResult<unknown>;
    try {
      const { events, ...rest } = (await this.workflow.result()) as AgentRunOutput;
      result = rest;
    } catch (error) {
      throw asRunFailure(this.workflowId, error);
    }
    return checkedResult<T>(this.workflowId, result);
  }

  /**
   * The run's events as they happen, ending after `run_completed`: from the start, after `afterSeq`
   * (a seq of the run's own), or after `after` (an event's `cursor`). The events of its sub-agent
   * runs come right after the call that started them, tagged `{ agent, sub_run, depth }`; every
   * event has a `cursor`, increasing, from which a reader resumes exactly.
   * @throws ConfigurationError when `after` is not a cursor.
   */
  async *events(opts: EventsFrom = {}): AsyncGenerator<AgentEvent> {
    const from = opts.after === undefined ? parseCursor(opts.afterSeq) : parseCursor(opts.after);
    try {
      yield* withChildEvents(
        (afterSeq) => streamRunEvents(this.workflow, afterSeq, { ...this.#startedRun, live: this.#live }),
        childEventsOf(this.workflow, this.#live),
        from,
      );
    } catch (error) {
      throw asRunFailure(this.workflowId, error);
    }
  }

  /**
   * The run's events after `afterSeq` that exist now (without waiting for more). A closed run's are
   * read from its result, with no worker; a running run's (and one of an earlier version, or one
   * that failed) by the events query, which a worker answers.
   */
  async listEvents(opts: { afterSeq?: number } = {}): Promise<AgentEvent[]> {
    const afterSeq = opts.afterSeq ?? 0;
    const closed = await this.closedEvents(afterSeq);
    return closed ?? this.workflow.query(eventsQuery, afterSeq);
  }

  /**
   * The events after `afterSeq` of a run that has closed with its events in its result or failure
   * (every run of this version that completed, stopped or failed); `undefined` while it runs, when it
   * was terminated or timed out, ran on an earlier version, or when what it carries does not reach
   * back to `afterSeq` (read those with the query).
   */
  async closedEvents(afterSeq = 0): Promise<AgentEvent[] | undefined> {
    const description = await this.workflow.describe();
    if (description.status.name !== 'COMPLETED' && description.status.name !== 'FAILED') return undefined;
    const log = await this.workflow.result().then(closedRunEvents, failedRunEvents);
    return eventsAfter(log, afterSeq);
  }
}

/**
 * Temporal wraps a run's failure in layers (workflow → activity → application); name the innermost.
 * A run a quota refused rejects with a {@link QuotaExceededError}.
 */
function asRunFailure(workflowId: string, error: unknown): unknown {
  if (!(error instanceof WorkflowFailedError)) return error;
  const quota = quotaExceededIn(error, workflowId);
  if (quota) return quota;
  let root: unknown = error;
  while (root instanceof Error && root.cause instanceof Error) root = root.cause;
  const reason = root instanceof Error ? root.message : String(root);
  return new RunFailedError(workflowId, reason, { cause: error });
}
