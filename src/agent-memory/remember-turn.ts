import type { Message } from '../common/messages.ts';
import type { EmbeddingTokens } from '../long-term-memory/embedder.ts';
import type { MemoryMessage } from '../long-term-memory/long-term-memory.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { RegisteredMemory } from './registered.ts';

/** What the `rememberTurn` activity takes: a turn's stored messages, by position, and whose memory they go to. */
export interface RememberTurnInput {
  agent: string;
  /** The run's tenant, for the usage ledger's line of the embedding tokens. */
  tenant?: string;
  conversationId: string;
  resource: string;
  /** The positions of the turn in the stored conversation: `fromSeq` up to (not including) `toSeq`. */
  fromSeq: number;
  toSeq: number;
  /** What the ids of the remembered messages start with: the session and turn id, or the run's workflow id. */
  turnKey: string;
  /** When the turn answered (epoch ms, the workflow's clock). */
  at: number;
}

/**
 * Remembers one answered turn: the user's prompt (without what memory recalled for it) and the
 * assistant's texts, read from the memory store where the turn stored them (tool results, already
 * redacted when stored, are left out). Each message's id is `<turnKey>/<position>`, so a retried
 * or repeated write replaces what the first stored. Answers the ids written; the tokens the
 * embedding spends are added to `usage`.
 */
export async function rememberTurn(
  memory: RegisteredMemory,
  store: MemoryStore,
  input: RememberTurnInput,
  usage?: EmbeddingTokens,
): Promise<string[]> {
  const stored = await store.read(input.conversationId, { before: input.toSeq });
  const messages: MemoryMessage[] = [];
  for (let seq = input.fromSeq; seq < stored.length; seq++) {
    const message = remembered(stored[seq]);
    if (message) messages.push({ id: `${input.turnKey}/${seq}`, ...message });
  }
  return memory.memory.remember(
    { resource: input.resource, sessionId: input.conversationId, at: input.at, messages },
    { ...(usage ? { usage } : {}) },
  );
}

/** What of a stored message is remembered: a prompt, or an assistant's text; nothing else. */
function remembered(message: Message | undefined): Omit<MemoryMessage, 'id'> | undefined {
  if (message?.role === 'user' && message.content.trim()) return { role: 'user', content: message.content };
  if (message?.role === 'assistant' && message.content.trim())
    return { role: 'assistant', content: message.content };
  return undefined;
}
