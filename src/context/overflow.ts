/**
 * A provider's "the prompt is too long" answer, recognised from the error bodies the services send:
 * - Anthropic: 400 `invalid_request_error`, "prompt is too long: 208163 tokens > 200000 maximum"
 * - OpenAI (and vLLM, which copies it): 400 `context_length_exceeded`, "This model's maximum context
 *   length is 128000 tokens. However, your messages resulted in 130415 tokens. ..." (or "you requested
 *   N tokens (M in the messages, K in the completion)"); the Responses API: "Your input exceeds the
 *   context window of this model."
 * - Gemini: 400 "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
 * - llama.cpp / Ollama servers: "the request exceeds the available context size".
 */
export interface PromptTooLong {
  /** Tokens the provider counted in the prompt, when it said. */
  tokens?: number;
  /** The provider's limit, when it said. */
  limit?: number;
}

/** Each with where its numbers are; `tokens` patterns in order of preference. */
const PATTERNS: Array<{ match: RegExp; tokens?: RegExp[]; limit?: RegExp }> = [
  { match: /prompt is too long/i, tokens: [/too long:\s*(\d+)\s*tokens/i], limit: />\s*(\d+)\s*maximum/i },
  {
    match: /context_length_exceeded|maximum context length is/i,
    tokens: [/(\d+) in the messages/i, /resulted in (\d+) tokens/i, /requested (\d+) tokens/i],
    limit: /maximum context length is (\d+)/i,
  },
  { match: /exceeds the context window/i },
  {
    match: /input token count.*exceeds the maximum number of tokens/i,
    tokens: [/input token count \(?(\d+)\)?/i],
    limit: /tokens allowed \(?(\d+)\)?/i,
  },
  { match: /exceeds the available context size|context size has been exceeded/i },
];

/** The numbers of a "prompt too long" error body or message, or undefined when it is another error. */
export function parsePromptTooLong(text: string): PromptTooLong | undefined {
  for (const pattern of PATTERNS) {
    if (!pattern.match.test(text)) continue;
    const found: PromptTooLong = {};
    const tokens = pattern.tokens?.map((regex) => regex.exec(text)?.[1]).find(Boolean);
    const limit = pattern.limit?.exec(text)?.[1];
    if (tokens) found.tokens = Number(tokens);
    if (limit) found.limit = Number(limit);
    return found;
  }
  return undefined;
}
