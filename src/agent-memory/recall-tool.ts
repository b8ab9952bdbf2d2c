import { z } from 'zod';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../tools/connector-base.ts';
import { recordEmbedding, type AgentUsage } from '../usage/recorder.ts';
import { formatRecalled, recallMatches } from './recall.ts';
import type { RegisteredMemory } from './registered.ts';

/** The name of the tool an agent with `memory.recall.mode: 'tool'` is given. */
export const RECALL_MEMORY_TOOL = 'recall_memory';

const parameters = z.object({
  query: z.string().min(1).describe('What to look for, in words: a name, a topic, a question.'),
});

/**
 * `recall_memory`: searches what the user said in earlier conversations (the run's resource in the
 * agent's long-term memory). Runs inside `invokeTool`, like any tool; its metadata names the ids found.
 * The tokens its query's embedding spends go to the usage ledger, at a line of the call's id.
 */
export class RecallMemoryTool extends BaseConnectorTool<typeof parameters> {
  readonly name = RECALL_MEMORY_TOOL;
  readonly description =
    'Searches what this user said in earlier conversations with you, by words and topic. ' +
    'Call it when the user refers to something from before, or when knowing their history would help.';
  readonly parameters = parameters;
  readonly #memory: RegisteredMemory;
  readonly #usage: AgentUsage | undefined;

  constructor(memory: RegisteredMemory, usage?: AgentUsage) {
    super();
    this.#memory = memory;
    this.#usage = usage;
  }

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const resource = context.memoryResource;
    if (resource === undefined)
      return { text: 'No memory is kept for this conversation.', metadata: { memory_recalled: [] } };
    const conversationId = context.conversationId ?? '';
    const embedding = { tokens: 0 };
    const hits = await recallMatches(
      this.#memory,
      resource,
      args.query,
      conversationId,
      this.#memory.limit,
      embedding,
    );
    const embedder = this.#memory.memory.embedderId;
    if (this.#usage && embedder) {
      const { agent, tenant, callId, workflowId, runId } = context;
      await recordEmbedding(
        this.#usage,
        { agent, tenant, conversationId, embedder, use: 'recall_memory', at: callId, ...embedding },
        { workflowId, runId },
      );
    }
    const ids = hits.map((hit) => hit.messageId);
    if (hits.length === 0)
      return { text: `Nothing remembered matches "${args.query}".`, metadata: { memory_recalled: ids } };
    return { text: formatRecalled(hits), metadata: { memory_recalled: ids } };
  }
}
