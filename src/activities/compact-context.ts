import type { Context } from '@temporalio/activity';
import type { ToolSchema } from '../common/index.ts';
import { compactConversation } from '../context/compact.ts';
import { contextSettings } from '../context/options.ts';
import type { CompactContextInput, CompactionResult } from '../context/types.ts';
import type { RegisteredAgent } from './registered-agent.ts';
import { lookupModel } from './registry.ts';
import { writeAttemptOf } from './write-attempt.ts';

/**
 * Compacts the context of a conversation before a model step (docs/chat.md): the oldest turns
 * become a summary stored beside the conversation in the memory store. Retried like `callModel`;
 * heartbeats while the model writes the summary. Only numbers go back to the workflow.
 */
export async function compactContext(
  agent: RegisteredAgent,
  input: CompactContextInput,
  context: Context,
): Promise<CompactionResult> {
  const model = lookupModel(agent, input.model);
  const tools = input.tools
    .map((name) => agent.schemas.get(name))
    .filter((s): s is ToolSchema => s !== undefined);
  const interval = setInterval(() => context.heartbeat(), Math.max(100, agent.timeouts.modelHeartbeatMs / 3));
  try {
    return await compactConversation({
      store: agent.memoryStore,
      model,
      settings: contextSettings(agent.context, model),
      conversationId: input.conversationId,
      seq: input.seq,
      tools,
      force: input.force,
      attempt: writeAttemptOf(context),
      signal: context.cancellationSignal,
      progress: () => context.heartbeat(),
    });
  } finally {
    clearInterval(interval);
  }
}
