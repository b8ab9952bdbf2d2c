import { z } from 'zod';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../tools/connector-base.ts';
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
 */
export class RecallMemoryTool extends BaseConnectorTool<typeof parameters> {
  readonly name = RECALL_MEMORY_TOOL;
  readonly description =
    'Searches what this user said in earlier conversations with you, by words and topic. ' +
    'Call it when the user refers to something from before, or when knowing their history would help.';
  readonly parameters = parameters;
  readonly #memory: RegisteredMemory;

  constructor(memory: RegisteredMemory) {
    super();
    this.#memory = memory;
  }

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const resource = context.memoryResource;
    if (resource === undefined)
      return { text: 'No memory is kept for this conversation.', metadata: { memory_recalled: [] } };
    const hits = await recallMatches(this.#memory, resource, args.query, context.conversationId ?? '');
    const ids = hits.map((hit) => hit.messageId);
    if (hits.length === 0)
      return { text: `Nothing remembered matches "${args.query}".`, metadata: { memory_recalled: ids } };
    return { text: formatRecalled(hits), metadata: { memory_recalled: ids } };
  }
}
