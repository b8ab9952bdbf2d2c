import { getExternalWorkflowHandle, ParentClosePolicy, startChild } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { chatWorkflowId, type ChatSessionInput } from '../common/chat.ts';
import { deliverSignal } from '../common/workflow-definitions.ts';
import { chatSession } from './chat-session.ts';

/**
 * Hands a chat session a message from a workflow (a schedule's firing, a poller's item): starts the
 * session when it is not running (it lives on, abandoned by this workflow), then signals the
 * message. The session runs a `turnId` at most once.
 */
export async function deliverToSession(
  session: ChatSessionInput,
  prompt: string,
  turnId: string,
): Promise<string> {
  const workflowId = chatWorkflowId(session.sessionId);
  try {
    await startChild(chatSession, {
      workflowId,
      args: [session],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  await getExternalWorkflowHandle(workflowId).signal(deliverSignal, { prompt, turnId });
  return workflowId;
}
