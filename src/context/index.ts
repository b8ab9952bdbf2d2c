/** The context room: keeps long conversations inside the model's context window. */
export type { ContextOptions, ContextMetadata } from './types.ts';
export { DEFAULT_MAX_INPUT_TOKENS } from './options.ts';
