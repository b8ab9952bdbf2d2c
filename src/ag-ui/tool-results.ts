import type { AgentChatSession } from '../client/chat-session.ts';
import { ControlRefusedError } from '../errors.ts';
import type { ToolResultInput } from '../frontend-tools/types.ts';
import { ChatRequestError } from '../ui-stream/chat-request.ts';

/**
 * Sends the results of frontend tool calls to the turn that waits on them, in order; each counts
 * once (a result sent again changes nothing). Answers the calls' ids (the stream continues after
 * their wait).
 * @throws ChatRequestError (409) for a call that does not wait (forged, answered and forgotten, or
 * timed out): the results before it were sent.
 */
export async function sendToolResults(
  session: AgentChatSession,
  results: readonly ToolResultInput[],
): Promise<Set<string>> {
  for (const { callId, content, error } of results) {
    try {
      await session.sendToolResult(callId, content, error === undefined ? {} : { error });
    } catch (failure) {
      if (!(failure instanceof ControlRefusedError)) throw failure;
      throw new ChatRequestError(
        409,
        `No frontend tool call of this thread waits on ${JSON.stringify(callId)} (${failure.message}): send a user message to start a new turn.`,
      );
    }
  }
  return new Set(results.map((result) => result.callId));
}
