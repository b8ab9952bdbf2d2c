import type { Message } from '../common/messages.ts';
import { capText } from '../common/text.ts';
import type { ModelAdapter } from '../models/model-adapter.ts';

/** Characters of one tool result or message that a summary request shows. */
const TRANSCRIPT_ENTRY_CHARS = 2_000;
/** Share of the budget one summary request may fill (the rest is room for the summary itself). */
const REQUEST_SHARE = 0.85;
/** Share of the budget a summary may take; a longer one is cut. */
const SUMMARY_SHARE = 0.15;

export interface SummarizeInput {
  model: ModelAdapter;
  prompt: string;
  /** The summary of what was compacted before, if any. */
  previous: string | undefined;
  messages: readonly Message[];
  maxInputTokens: number;
  /** Real tokens per character, roughly (the calibration ratio / 4). */
  tokensPerChar: number;
  signal?: AbortSignal;
  /** Called between model calls (the activity heartbeats). */
  progress?: () => void;
}

/**
 * Summarizes `messages` onto `previous` with the model: one call when the transcript fits a request,
 * else one call per part, each carrying the summary so far. Provider data (signed thinking) never
 * goes into a summary request: it is a plain-text transcript.
 */
export async function summarize(input: SummarizeInput): Promise<{ text: string; calls: number }> {
  const maxChars = Math.floor((input.maxInputTokens * REQUEST_SHARE) / input.tokensPerChar);
  const summaryChars = Math.floor((input.maxInputTokens * SUMMARY_SHARE) / input.tokensPerChar);
  let summary = input.previous ?? '';
  let calls = 0;
  const partChars = Math.max(1_000, maxChars - input.prompt.length - summaryChars);
  for (const part of parts(transcript(input.messages), partChars)) {
    const response = await input.model.generate({
      messages: [
        { role: 'system', content: input.prompt },
        {
          role: 'user',
          content:
            (summary ? `The summary so far:\n${summary}\n\n` : '') +
            `The conversation to add to the summary:\n${part}\n\nWrite the updated summary.`,
        },
      ],
      tools: [],
      ...(input.signal ? { signal: input.signal } : {}),
    });
    calls += 1;
    input.progress?.();
    summary = capText(response.text.trim(), Math.max(200, summaryChars)).text;
  }
  return { text: summary, calls };
}

/** The messages as a plain transcript, one entry per message, long entries cut. */
export function transcript(messages: readonly Message[]): string[] {
  const entries: string[] = [];
  for (const message of messages) {
    const cap = (text: string) => capText(text, TRANSCRIPT_ENTRY_CHARS).text;
    if (message.role === 'user') entries.push(`User: ${cap(message.content)}`);
    if (message.role === 'assistant') {
      if (message.content) entries.push(`Assistant: ${cap(message.content)}`);
      for (const call of message.toolCalls ?? [])
        entries.push(`Assistant called ${call.name} with ${cap(JSON.stringify(call.args))}`);
    }
    if (message.role === 'tool')
      entries.push(
        `${message.isError ? 'Error from' : 'Result of'} ${message.toolName}: ${cap(message.content)}`,
      );
  }
  return entries;
}

/** Consecutive entries joined into parts of at most `maxChars` (a longer single entry is its own part). */
function parts(entries: string[], maxChars: number): string[] {
  const result: string[] = [];
  let current = '';
  for (const entry of entries) {
    if (current && current.length + entry.length + 1 > maxChars) {
      result.push(current);
      current = '';
    }
    current = current ? `${current}\n${entry}` : entry;
  }
  if (current) result.push(current);
  return result;
}
