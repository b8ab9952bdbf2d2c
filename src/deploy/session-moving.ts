/** Workflow-safe: imports nothing but `@temporalio/common`. */
import { ApplicationFailure } from '@temporalio/common';

/**
 * The failure type of a message a chat session refuses because it is about to continue as new onto
 * a newer worker version: the sender sends the message again, and the session's new run answers it.
 */
export const SESSION_MOVING = 'SessionMovingToNewVersion';

export function sessionMovingRefusal(): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    'The chat session is moving to a new worker version: send the message again.',
    SESSION_MOVING,
  );
}
