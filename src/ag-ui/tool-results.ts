import type { AgentChatSession } from '../client/chat-session.ts';
import { ControlRefusedError } from '../errors.ts';
import type { ToolResultInput } from '../frontend-tools/types.ts';
import { ChatRequestError } from '../ui-stream/chat-request.ts';

/**
 * Sends the results of frontend tool calls to the turn that waits on them, in order; each counts
 * once (a result sent again changes nothing). Answers the calls' ids (the stream continues after
 * their wait).
 * @throws ChatRequestError (400) when some of the calls that wait are answered and others not (the
 * turn would go on waiting), (409) for a call that does not wait (forged, or timed out): the
 * results before it were sent.
 */
export async function sendToolResults(
  session: AgentChatSession,
  results: readonly ToolResultInput[],
): Promise<Set<string>> {
  const answered = new Set(results.map((result) => result.callId));
  const waiting = await session.pendingToolCalls();
  const left = waiting.filter((callId) => !answered.has(callId));
  // Some of the calls that wait, not all: the turn would go on waiting for the others.
  if (left.length > 0 && left.length < waiting.length) {
    throw new ChatRequestError(
      400,
      `The turn waits for the results of ${left.join(', ')} too: send a \`tool\` message for each call it left pending.`,
    );
  }
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
  return answered;
}

/**
 * Refuses a new turn while the running one waits for the results of frontend tool calls (it would
 * wait behind it).
 * @throws ChatRequestError (409) naming the calls.
 */
export async function refuseWhileToolCallsWait(session: AgentChatSession): Promise<void> {
  const waiting = await session.pendingToolCalls();
  if (waiting.length > 0) {
    throw new ChatRequestError(
      409,
      `This thread's turn waits for the results of frontend tool calls ${waiting.join(', ')}: send them as \`tool\` messages (toolCallId set) last in the run's messages.`,
    );
  }
}
