import type { Message, Usage } from '../common/messages.ts';
import type { EmbeddingTokens } from '../long-term-memory/embedder.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { ModelAdapter } from '../models/model-adapter.ts';
import type { RegisteredMemory } from './registered.ts';

/** The most characters of a turn's message the observer reads. */
const MAX_MESSAGE_CHARS = 4_000;

/** What the `observeTurns` activity takes: the positions of the turns to condense, and whose memory they go to. */
export interface ObserveTurnsInput {
  agent: string;
  /** The session's tenant, for the usage ledger's lines of the observer's tokens. */
  tenant?: string;
  conversationId: string;
  resource: string;
  fromSeq: number;
  toSeq: number;
  /** When (epoch ms, the workflow's clock): the observations' date. */
  at: number;
}

/** What condensing turns spent: the observer model's tokens, and the embedder's. */
export interface ObserverSpend {
  model?: Usage;
  embedding: EmbeddingTokens;
}

/**
 * Condenses the turns stored at `[fromSeq, toSeq)` into dated observations with the agent's model,
 * and remembers them as one message `<conversationId>/observations/<fromSeq>-<toSeq>`: recalled like
 * turns, and replaced whole when the activity runs again (a retry, another worker). Answers its id,
 * or none when the turns said nothing (or the model found nothing worth keeping). What the model
 * and the embedder spent goes in `spend`.
 */
export async function observeTurns(
  memory: RegisteredMemory,
  store: MemoryStore,
  model: ModelAdapter,
  input: ObserveTurnsInput,
  signal: AbortSignal,
  spend: ObserverSpend = { embedding: { tokens: 0 } },
): Promise<string[]> {
  const stored = await store.read(input.conversationId, { before: input.toSeq });
  const transcript = stored.slice(input.fromSeq).flatMap(line);
  if (transcript.length === 0) return [];
  const date = new Date(input.at).toISOString().slice(0, 10);
  const answer = await model.generate({
    messages: [{ role: 'user', content: observerPrompt(date, transcript) }],
    tools: [],
    signal,
  });
  if (answer.usage) spend.model = answer.usage;
  const observations = answer.text.trim();
  if (!observations || /^none\.?$/i.test(observations)) return [];
  return memory.memory.remember(
    {
      resource: input.resource,
      sessionId: input.conversationId,
      at: input.at,
      messages: [
        {
          id: `${input.conversationId}/observations/${input.fromSeq}-${input.toSeq}`,
          role: 'system',
          content: `Observations of ${date}:\n${observations}`,
        },
      ],
    },
    { usage: spend.embedding },
  );
}

/** The instruction the observer model gets; its first words mark it (tests and logs know it by them). */
export function observerPrompt(date: string, transcript: string[]): string {
  return (
    `Condense this conversation of ${date} into observations about the user worth remembering in later ` +
    'conversations: facts, preferences, plans, decisions, each on a line beginning with "- " and, when it ' +
    `has one, the date it refers to. Answer "none" if there is nothing to keep.\n\n${transcript.join('\n')}`
  );
}

function line(message: Message): string[] {
  const text = message.content.slice(0, MAX_MESSAGE_CHARS).replace(/\s+/g, ' ').trim();
  if (!text) return [];
  if (message.role === 'user') return [`User: ${text}`];
  if (message.role === 'assistant') return [`Assistant: ${text}`];
  return [];
}
