import type { Message, ToolSchema } from '../common/messages.ts';

/**
 * A cheap, provider-independent count: about four characters per token plus a few tokens of
 * framing per message. It is never used raw: `callModel` scales it by the ratio between the
 * provider's own `usage.input_tokens` and this count for the previous step (or by the local
 * model's real tokenizer), so the estimate follows whatever tokenizer the model has.
 */
export const CHARS_PER_TOKEN = 4;
const TOKENS_PER_MESSAGE = 4;

/** Uncalibrated tokens of one message, as sent (text, tool calls, reasoning handed back). */
export function messageUnits(message: Message): number {
  let chars = message.content.length;
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) chars += call.name.length + JSON.stringify(call.args).length;
    for (const part of message.providerData?.reasoning ?? []) chars += part.text.length;
  }
  if (message.role === 'tool') chars += message.toolName.length;
  return Math.ceil(chars / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE;
}

/** Uncalibrated tokens of the tool schemas a step sends. */
export function toolUnits(tools: readonly ToolSchema[]): number {
  return tools.length ? Math.ceil(JSON.stringify(tools).length / CHARS_PER_TOKEN) : 0;
}

/** Uncalibrated tokens of a whole request. */
export function requestUnits(messages: readonly Message[], tools: readonly ToolSchema[]): number {
  return messages.reduce((sum, message) => sum + messageUnits(message), toolUnits(tools));
}

/** Real tokens per uncalibrated unit, from one request whose real count is known. Kept within 0.25-4. */
export function calibrationRatio(realTokens: number, units: number): number {
  if (!(realTokens > 0) || !(units > 0)) return 1;
  return Math.min(4, Math.max(0.25, realTokens / units));
}
