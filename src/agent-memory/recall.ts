import type { EmbeddingTokens } from '../long-term-memory/embedder.ts';
import type { RecallHit } from '../long-term-memory/long-term-memory.ts';
import type { RegisteredMemory } from './registered.ts';

/** What memory recalled for a turn: the text the model sees before the prompt, and the ids it came from. */
export interface RecalledForTurn {
  text: string | undefined;
  ids: string[];
}

/**
 * The best matches of `resource`'s memory for a prompt, left out those of the conversation itself
 * (the model sees those already), at most the agent's `recall.limit`. The tokens the query's
 * embedding spends are added to `usage`.
 */
export async function recallMatches(
  memory: RegisteredMemory,
  resource: string,
  query: string,
  conversationId: string,
  limit = memory.limit,
  usage?: EmbeddingTokens,
): Promise<RecallHit[]> {
  // Asked for more than the limit: hits of this conversation are dropped below.
  const hits = await memory.memory.recall(
    { resource, query, limit: Math.min(1000, limit * 2 + 10) },
    { ...(usage ? { usage } : {}) },
  );
  return hits.filter((hit) => hit.sessionId !== conversationId).slice(0, limit);
}

/** The recalled messages as the model reads them: one line each, dated, best first. */
export function formatRecalled(hits: readonly RecallHit[]): string {
  const lines = hits.map((hit) => `- [${hit.at.toISOString().slice(0, 10)}] ${oneLine(hit.text)}`);
  return `Remembered from earlier conversations with this user (best match first):\n${lines.join('\n')}`;
}

/** What memory recalls for a turn's prompt in `'auto'` mode (nothing in `'tool'` mode). */
export async function recallForTurn(
  memory: RegisteredMemory,
  resource: string,
  prompt: string,
  conversationId: string,
  usage?: EmbeddingTokens,
): Promise<RecalledForTurn> {
  if (memory.mode !== 'auto') return { text: undefined, ids: [] };
  const hits = await recallMatches(memory, resource, prompt, conversationId, memory.limit, usage);
  if (hits.length === 0) return { text: undefined, ids: [] };
  return { text: formatRecalled(hits), ids: hits.map((hit) => hit.messageId) };
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
