import type * as Ai from 'ai';

export type { UIMessageChunk } from 'ai';
import { requireOptional } from '../optional-dependency.ts';

/** The `ai` package (the AI SDK), an optional peer dependency: loaded on first use, with a clear error without it. */
export function aiPackage(feature: string): typeof Ai {
  return requireOptional<typeof Ai>('ai', feature);
}
