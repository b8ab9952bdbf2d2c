import { ConfigurationError } from '../errors.ts';
import type { ModelAdapter } from '../models/model-adapter.ts';
import type { ContextOptions } from './types.ts';

/** The budget of a model whose family is not in the table: fits any current chat model. */
export const DEFAULT_MAX_INPUT_TOKENS = 24_000;
export const DEFAULT_KEEP_RECENT_TURNS = 10;
export const DEFAULT_SUMMARY_PROMPT =
  'You compress a conversation between a user and an assistant so that it can go on without the ' +
  'original messages. Write a concise summary that keeps every fact, name, number, date, decision, ' +
  'preference, tool result that still matters, and open task, as plain sentences or short bullet points. ' +
  'Leave out greetings and anything superseded. Answer with the summary only.';

/** Context windows of well-known model families, and what to leave free for the answer. */
const MODEL_FAMILIES: Array<{ family: RegExp; window: number; reserve: number }> = [
  { family: /claude/i, window: 200_000, reserve: 32_000 },
  { family: /gpt-5/i, window: 400_000, reserve: 128_000 },
  { family: /gpt-4\.1/i, window: 1_047_576, reserve: 32_768 },
  { family: /gpt-4o|gpt-4-turbo/i, window: 128_000, reserve: 16_384 },
  { family: /(^|[:/])o[134](-|$)/i, window: 200_000, reserve: 100_000 },
  { family: /gemini/i, window: 1_048_576, reserve: 65_536 },
  { family: /gemma/i, window: 32_768, reserve: 8_192 },
];

/** An agent's context settings for one model, with the defaults filled in. */
export interface ContextSettings {
  maxInputTokens: number;
  keepRecentTurns: number;
  compaction: 'summarize' | 'truncate' | false;
  summaryPrompt: string;
}

/**
 * The input budget of a model when the agent sets none: what the adapter says (the local model
 * knows its context size), else its family's window minus the answer's reserve, else 24,000.
 */
export function defaultMaxInputTokens(model: Pick<ModelAdapter, 'modelId' | 'maxInputTokens'>): number {
  if (model.maxInputTokens) return model.maxInputTokens;
  const known = MODEL_FAMILIES.find((entry) => entry.family.test(model.modelId));
  return known ? known.window - known.reserve : DEFAULT_MAX_INPUT_TOKENS;
}

export function contextSettings(
  options: ContextOptions | undefined,
  model: Pick<ModelAdapter, 'modelId' | 'maxInputTokens'>,
): ContextSettings {
  return {
    maxInputTokens: options?.maxInputTokens ?? defaultMaxInputTokens(model),
    keepRecentTurns: options?.keepRecentTurns ?? DEFAULT_KEEP_RECENT_TURNS,
    compaction: options?.compaction ?? 'summarize',
    summaryPrompt: options?.summaryPrompt ?? DEFAULT_SUMMARY_PROMPT,
  };
}

/** Refuses settings that cannot work, when the worker is created rather than mid-run. */
export function validateContextOptions(agent: string, options: ContextOptions | undefined): void {
  if (options === undefined) return;
  const where = `Agent "${agent}": context`;
  const { maxInputTokens, keepRecentTurns, compaction, summaryPrompt } = options;
  if (maxInputTokens !== undefined && (!Number.isInteger(maxInputTokens) || maxInputTokens < 256)) {
    throw new ConfigurationError(
      `${where}.maxInputTokens must be a whole number of at least 256 (it is ${String(maxInputTokens)}).`,
    );
  }
  if (keepRecentTurns !== undefined && (!Number.isInteger(keepRecentTurns) || keepRecentTurns < 1)) {
    throw new ConfigurationError(`${where}.keepRecentTurns must be a whole number of at least 1.`);
  }
  if (compaction !== undefined && !['summarize', 'truncate', false].includes(compaction)) {
    throw new ConfigurationError(`${where}.compaction must be 'summarize', 'truncate' or false.`);
  }
  if (summaryPrompt !== undefined && (typeof summaryPrompt !== 'string' || summaryPrompt.trim() === '')) {
    throw new ConfigurationError(`${where}.summaryPrompt must be a non-empty string.`);
  }
}
