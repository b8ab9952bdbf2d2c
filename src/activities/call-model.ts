import type { Context } from '@temporalio/activity';
import type { CallModelInput, ModelStep, ToolSchema } from '../common/index.ts';
import { ToolkitError } from '../errors.ts';
import { mcpSchemas } from '../mcp/run-tools.ts';
import { TextDeltaBatcher } from './live-text.ts';
import { lookupModel, type RegisteredAgent } from './registry.ts';

/**
 * One model step: loads the conversation before `seq` from the memory store, asks the model,
 * stores its answer at `seq` (replacing what a failed attempt may have stored) and returns the small
 * delta the workflow needs. Heartbeats while the model thinks, so a dead worker is noticed quickly.
 */
export async function callModel(
  agent: RegisteredAgent,
  input: CallModelInput,
  context: Context,
): Promise<ModelStep> {
  const messages = await agent.memoryStore.read(input.conversationId, { before: input.seq });
  const mcp = await mcpSchemas(agent, input.tools, input.tenant);
  const tools = input.tools
    .map((name) => agent.schemas.get(name) ?? mcp.get(name))
    .filter((s): s is ToolSchema => s !== undefined);
  // Frequent local heartbeats (the worker throttles what it sends) also carry cancellation here quickly.
  const every = Math.min(1000, Math.max(100, agent.timeouts.modelHeartbeatMs / 3));
  const interval = setInterval(() => context.heartbeat(), every);
  const deltas = input.textDeltaBatchMs
    ? TextDeltaBatcher.forActivity(context, input.seq, input.textDeltaBatchMs)
    : undefined;
  try {
    const response = await lookupModel(agent, input.model).generate({
      messages,
      tools,
      signal: context.cancellationSignal,
      ...(deltas ? { onTextDelta: (text: string) => deltas.push(text) } : {}),
    });
    // The live text reaches the workflow before the step's result does.
    await deltas?.close();
    const ids = new Set<string>();
    for (const call of response.toolCalls) {
      if (!call.id || ids.has(call.id)) {
        throw new ToolkitError(
          'MODEL_RESPONSE',
          `The model returned tool calls without unique ids (${call.id}).`,
          {
            retryable: true,
          },
        );
      }
      ids.add(call.id);
    }
    await agent.memoryStore.append(input.conversationId, input.seq, [
      {
        role: 'assistant',
        content: response.text,
        ...(response.toolCalls.length ? { toolCalls: response.toolCalls } : {}),
        ...(response.reasoning ? { reasoning: response.reasoning } : {}),
        ...(response.providerData ? { providerData: response.providerData } : {}),
      },
    ]);
    return {
      text: response.text,
      toolCalls: response.toolCalls,
      ...(response.reasoning ? { reasoning: response.reasoning } : {}),
      ...(response.usage ? { usage: response.usage } : {}),
    };
  } finally {
    clearInterval(interval);
    void deltas?.close();
  }
}
