/** The context room: keeps long conversations inside the model's context window. */
export type { ContextOptions, ContextMetadata } from './types.ts';
export {
  DEFAULT_KEEP_RECENT_TURNS,
  DEFAULT_MAX_INPUT_TOKENS,
  DEFAULT_SUMMARY_PROMPT,
  defaultMaxInputTokens,
} from './options.ts';
export { parsePromptTooLong, type PromptTooLong } from './overflow.ts';
