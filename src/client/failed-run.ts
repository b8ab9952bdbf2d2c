import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { asClosedRunEvents, RUN_FAILED_TYPE, type ClosedRunEvents } from '../common/events.ts';

/** The events a failed run's failure carries (runs of this version; earlier ones carry none). */
export function failedRunEvents(error: unknown): ClosedRunEvents | undefined {
  if (!(error instanceof WorkflowFailedError)) return undefined;
  const failure = error.cause;
  if (!(failure instanceof ApplicationFailure) || failure.type !== RUN_FAILED_TYPE) return undefined;
  return asClosedRunEvents(failure.details?.[0]);
}
