import {
  getExternalWorkflowHandle,
  ParentClosePolicy,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { chatWorkflowId, type SessionMessageInput } from '../common/chat.ts';
import { chatSession, deliverSignal } from './chat-session.ts';
import { recordSdkFlags } from './sdk-flags.ts';

/**
 * A message into a chat session that no one waits on (what a schedule starts): starts the session
 * when it is not running (it lives on after this workflow, abandoned), then delivers the message by
 * signal. The message's id is this workflow's id, so a firing delivered twice runs one turn.
 */
export async function sessionMessage(input: SessionMessageInput): Promise<string> {
  recordSdkFlags();
  const workflowId = chatWorkflowId(input.session.sessionId);
  try {
    await startChild(chatSession, {
      workflowId,
      args: [input.session],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  await getExternalWorkflowHandle(workflowId).signal(deliverSignal, {
    prompt: input.prompt,
    turnId: workflowInfo().workflowId,
  });
  return workflowId;
}
