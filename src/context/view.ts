import type { Message, ToolSchema } from '../common/messages.ts';
import { messageUnits, toolUnits } from './estimate.ts';
import type { StoredSummary } from './store.ts';

/** Tool results longer than this are the first thing left out of an over-budget request. */
export const LARGE_TOOL_RESULT_CHARS = 2_000;

/** What one model step sees of a stored conversation. */
export interface ContextView {
  messages: Message[];
  /** Estimated input tokens (calibrated). */
  tokens: number;
  /** Tool results whose bodies were replaced by a one-line note. */
  dropped: number;
}

export interface ViewInput {
  /** The stored conversation before the step, in order (index = position). */
  stored: readonly Message[];
  summary?: StoredSummary | undefined;
  tools: readonly ToolSchema[];
  /** Real tokens per estimated unit. */
  ratio: number;
  /** Leave out old large tool results until the request fits this many tokens, if it can. */
  budget: number;
}

/**
 * The request of a model step: the system prompt (with the run's skills), the summary of what was
 * compacted, the current turn's prompt when the cut fell inside that turn, and the messages since
 * the cut verbatim. Cuts fall only between whole steps (an assistant message and all its tool
 * results), so a tool call is never separated from its result, and the provider data (signed
 * thinking) of compacted turns is left out whole. While the request is over `budget`, the bodies of
 * old large tool results are left out first (the results of the latest step never are).
 */
export function buildView(input: ViewInput): ContextView {
  const { stored, summary } = input;
  const systemEnd = stored[0]?.role === 'system' ? 1 : 0;
  const start = Math.max(systemEnd, summary?.throughSeq ?? 0);
  const messages: Message[] = stored.slice(0, systemEnd);
  if (summary) {
    messages.push(summaryMessage(summary));
    if (stored[start] && stored[start].role !== 'user') {
      const prompt = stored.slice(systemEnd, start).findLast((message) => message.role === 'user');
      if (prompt) messages.push(prompt);
    }
  }
  messages.push(...stored.slice(start));
  for (const [i, message] of messages.entries()) messages[i] = withRecalled(message);
  const units = messages.map(messageUnits);
  let total = units.reduce((sum, value) => sum + value, toolUnits(input.tools));
  const tokens = () => Math.ceil(total * input.ratio);
  let dropped = 0;
  let latest = messages.length;
  while (latest > 0 && messages[latest - 1]!.role === 'tool') latest -= 1;
  for (let i = 0; i < latest && tokens() > input.budget; i++) {
    const message = messages[i]!;
    if (message.role !== 'tool' || message.content.length <= LARGE_TOOL_RESULT_CHARS) continue;
    const slim = { ...message, content: droppedNote(message.toolName, message.content) };
    messages[i] = slim;
    total += messageUnits(slim) - units[i]!;
    dropped += 1;
  }
  return { messages, tokens: tokens(), dropped };
}

/** The first message after the system prompt once a conversation was compacted. */
export function summaryMessage(summary: Pick<StoredSummary, 'text' | 'throughSeq'>): Message {
  if (!summary.text) {
    return {
      role: 'user',
      content:
        "(The earliest messages of this conversation were dropped to fit the model's context window; " +
        'the conversation continues below.)',
    };
  }
  return {
    role: 'user',
    content:
      'Summary of the earlier part of this conversation (written to fit the context window; the ' +
      `original messages are not shown):\n\n${summary.text}`,
  };
}

/** A user message as the model reads it: what memory recalled for its turn, then the prompt. */
function withRecalled(message: Message): Message {
  if (message.role !== 'user' || !message.recalled) return message;
  return { role: 'user', content: `${message.recalled}\n\n${message.content}` };
}

function droppedNote(tool: string, content: string): string {
  const start = content.slice(0, 120).replace(/\s+/g, ' ').trim();
  return `[${tool} result left out to save context: ${content.length} characters, beginning "${start}…"]`;
}
