import type { ProviderTurn } from './scripted-provider.ts';

/**
 * A stand-in model that can only answer from what is in its request (Anthropic or OpenAI chat
 * format): it summarizes by keeping the `FACT:` lines it is shown, answers "what is the vault code"
 * from a `vault code is N` it can read, and otherwise acknowledges the prompt.
 */
export const FACT_SUMMARY_PROMPT = 'Summarize the conversation so far. Keep every FACT line word for word.';

export function isSummaryRequest(body: Record<string, unknown>): boolean {
  return requestText(body).includes('Keep every FACT line');
}

export function readingModel(body: Record<string, unknown>): ProviderTurn {
  const text = requestText(body);
  if (isSummaryRequest(body)) {
    const facts = [...new Set(text.match(/FACT:[^"\\]*/g) ?? [])];
    return { text: [...facts, 'The rest was small talk.'].join('\n') };
  }
  const prompt = lastUserText(body);
  if (/what is the vault code/i.test(prompt)) {
    const found = /vault code is (\d+)/.exec(text);
    return { text: found ? `The vault code is ${found[1]}.` : 'That is not in this conversation.' };
  }
  return { text: `Noted: ${prompt.slice(0, 40)}` };
}

/** Everything the model is shown: system prompt and messages, as JSON text. */
export function requestText(body: Record<string, unknown>): string {
  return JSON.stringify([body.system ?? null, body.messages]);
}

/** The text of the last user message (its last text part). */
export function lastUserText(body: Record<string, unknown>): string {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  const last = messages.findLast((message) => message.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  const parts = (last.content as Array<{ type: string; text?: string }>).filter(
    (part) => part.type === 'text',
  );
  return parts.at(-1)?.text ?? '';
}
