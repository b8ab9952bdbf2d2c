import { workflowInfo } from '@temporalio/workflow';
import type { SessionMessageInput } from '../common/chat.ts';
import { deliverToSession } from './deliver-to-session.ts';
import { recordSdkFlags } from './sdk-flags.ts';
import { checkWorkflowInput } from '../contract/check-input.ts';

/**
 * A message into a chat session that no one waits on (what a schedule starts). The message's id is
 * this workflow's id, so a firing delivered twice runs one turn.
 */
export async function sessionMessage(input: SessionMessageInput): Promise<string> {
  recordSdkFlags();
  checkWorkflowInput('sessionMessage', input);
  return deliverToSession(input.session, input.prompt, workflowInfo().workflowId);
}
