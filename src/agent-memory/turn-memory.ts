import type { Context } from '@temporalio/activity';
import { wrappedMemoryRecall } from '../activities/model-step-wrappers.ts';
import type { Message } from '../common/messages.ts';
import type { EmbeddingTokens } from '../long-term-memory/embedder.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { MemoryResourceContext } from './options.ts';
import { recallForTurn } from './recall.ts';
import { resourceOf, type RegisteredMemory } from './registered.ts';
import { formatWorkingMemory, readWorkingMemory } from './working-memory.ts';

/** What an activity knows of the run or turn it serves, for `memory.resource`. */
export function memoryContext(
  agent: string,
  tenant: string | undefined,
  conversationId: string,
  context: Pick<Context, 'info'>,
): MemoryResourceContext {
  const chat = context.info.workflowType === 'chatSession';
  return {
    agent,
    workflowId: context.info.workflowExecution?.workflowId ?? '',
    ...(tenant !== undefined ? { tenant } : {}),
    ...(chat ? { sessionId: conversationId } : {}),
  };
}

/** A tool call's `memoryResource` (for `recall_memory`): none when the agent has no memory or the run no resource. */
export function toolMemoryResource(
  memory: RegisteredMemory | undefined,
  call: { agent: string; tenant?: string; conversationId: string },
  context: Pick<Context, 'info'>,
): { memoryResource?: string } {
  if (!memory) return {};
  const resource = resourceOf(memory, memoryContext(call.agent, call.tenant, call.conversationId, context));
  return resource === undefined ? {} : { memoryResource: resource };
}

/** The workflows whose turns use memory: runs and chat sessions (a deep run's phases do not). */
const REMEMBERING_WORKFLOWS = new Set(['agentRun', 'chatSession']);

/** What a turn's opening learned of memory: the resource, and what was recalled into its prompt. */
export interface TurnMemory {
  resource: string;
  recalled: string[];
  /** The text the model sees before the prompt; absent when nothing was recalled. */
  text?: string;
}

/**
 * The memory of a turn about to open: its resource (`undefined` when the agent has no memory or
 * answers no resource) and, in `'auto'` mode, what is recalled for its prompt (inside the wrappers
 * telemetry sets, for its span); the tokens the recall's embedding spends are added to `usage`.
 */
export async function openTurnMemory(
  memory: RegisteredMemory | undefined,
  turn: { agent: string; tenant?: string; conversationId: string; prompt: string },
  context: Context,
  usage?: EmbeddingTokens,
): Promise<TurnMemory | undefined> {
  if (!memory || !REMEMBERING_WORKFLOWS.has(context.info.workflowType ?? '')) return undefined;
  const resource = resourceOf(memory, memoryContext(turn.agent, turn.tenant, turn.conversationId, context));
  if (resource === undefined) return undefined;
  const recalled =
    memory.mode === 'auto'
      ? await wrappedMemoryRecall(
          {
            agent: turn.agent,
            conversationId: turn.conversationId,
            ...(turn.tenant === undefined ? {} : { tenant: turn.tenant }),
          },
          () => recallForTurn(memory, resource, turn.prompt, turn.conversationId, usage),
        )
      : { text: undefined, ids: [] };
  const profile = memory.working && (await readWorkingMemory(memory.working.store, resource));
  const text = [profile && formatWorkingMemory(profile), recalled.text].filter(Boolean).join('\n\n');
  return { resource, recalled: recalled.ids, ...(text ? { text } : {}) };
}

/**
 * Messages that rewrite stored ones in place, the first keeping what long-term memory recalled for
 * the prompt it replaces (an input guardrail rewrites a prompt; the model should still get its memory).
 */
export async function keepingRecalled(
  store: MemoryStore,
  input: { conversationId: string; seq: number; messages: Message[] },
): Promise<Message[]> {
  const [first, ...rest] = input.messages;
  if (first?.role !== 'user') return input.messages;
  const stored = (await store.read(input.conversationId, { before: input.seq + 1 }))[input.seq];
  const recalled = stored?.role === 'user' ? stored.recalled : undefined;
  return recalled ? [{ ...first, recalled }, ...rest] : input.messages;
}
