import type { Client } from '@temporalio/client';
import type { AgentChatSession } from '../client/chat-session.ts';
import type { AgentEvent } from '../common/events.ts';
import type { ChatTurnResult } from '../common/chat.ts';
import { addUsage, emptyUsage, messageOf } from './run-figures.ts';
import { sessionTurns, type SessionTurn } from './session-turns.ts';
import { trajectoryOf } from './trajectory.ts';
import type { CaseRun } from './types.ts';

/**
 * A chat case: its turns sent one after the other to a new session. The answer is the last turn's,
 * the usage every turn's, and the tool calls those of every turn, its sub-agents' included (read
 * from the session's history once the turns are done). Each turn as the session took it is added
 * to `taken`.
 */
export async function runChatCase(
  chat: { session: AgentChatSession; client: () => Client },
  turns: string[],
  events: AgentEvent[],
  taken: SessionTurn[] = [],
): Promise<CaseRun> {
  const began = Date.now();
  const { session } = chat;
  let usage = emptyUsage();
  let last: ChatTurnResult<unknown> | undefined;
  const calls = async () => {
    const read = await sessionTurns(chat.client().workflow.getHandle(session.workflowId));
    taken.push(...read);
    events.push(...read.flatMap((turn) => turn.events));
    return trajectoryOf(events);
  };
  try {
    for (const turn of turns) {
      last = await session.send(turn);
      usage = addUsage(usage, last.metadata.usage);
    }
    return {
      workflowId: session.workflowId,
      output: last?.output,
      ...(last ? { stopReason: last.metadata.stop_reason, model: last.metadata.model } : {}),
      toolCalls: await calls(),
      usage,
      durationMs: Date.now() - began,
    };
  } catch (error) {
    return {
      workflowId: session.workflowId,
      output: undefined,
      toolCalls: await calls().catch(() => []),
      usage,
      durationMs: Date.now() - began,
      error: messageOf(error),
    };
  }
}
