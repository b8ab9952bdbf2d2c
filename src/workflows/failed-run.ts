import { ApplicationFailure, isCancellation, TemporalFailure } from '@temporalio/workflow';
import { RUN_FAILED_TYPE } from '../common/events.ts';
import type { EventLog } from './event-log.ts';

/**
 * What a run that failed throws: the failure (an activity that failed for good, a refused input) as
 * the cause of a non-retryable `AgentRunFailed` failure with the root cause's message, carrying the
 * run's events as its detail, so that readers finish a failed run without a worker, as they do a
 * completed one. One payload per run (encrypted with the others). Cancellation and errors that are
 * not Temporal failures (a bug: the workflow task is retried) pass through unchanged.
 */
export function failedWithEvents(error: unknown, events: EventLog): unknown {
  if (!(error instanceof TemporalFailure) || isCancellation(error)) return error;
  let root: Error = error;
  while (root.cause instanceof Error) root = root.cause;
  return ApplicationFailure.create({
    message: root.message,
    type: RUN_FAILED_TYPE,
    nonRetryable: true,
    cause: error,
    details: [events.closed()],
  });
}
