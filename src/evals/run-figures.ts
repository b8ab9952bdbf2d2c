import type { Usage } from '../common/messages.ts';

/** No tokens. */
export function emptyUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
}

/** Tokens of two runs added up. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}

/** What a run's failure says. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
