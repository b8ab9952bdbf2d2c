/**
 * The conversation as the model adapters see it. Stored in the memory store, never in workflow
 * history; shared by workflow and worker code, so it has no imports.
 */

/** One tool call requested by the model. `id` pairs it with its result. */
export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/**
 * What a provider needs back on the next request and nothing else does: signed thinking blocks,
 * reasoning item ids, per-call signatures. Kept with the stored message, never in history.
 */
export interface ProviderData {
  reasoning?: Array<{ text: string; providerOptions?: Record<string, Record<string, unknown>> }>;
  toolCalls?: Record<string, Record<string, Record<string, unknown>>>;
}

export type Message =
  | { role: 'system'; content: string }
  | {
      role: 'user';
      content: string;
      /** What long-term memory recalled for this turn: the model sees it before `content`. */
      recalled?: string;
    }
  | {
      role: 'assistant';
      content: string;
      toolCalls?: ToolCall[];
      reasoning?: string;
      providerData?: ProviderData;
      /** The agent that wrote it, in conversations that are handed from agent to agent. */
      agent?: string;
    }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

/** A call's result as stored in the conversation (`isError` when the call failed). */
export function toolResultMessage(call: ToolCall, content: string, isError = false): Message {
  return { role: 'tool', toolCallId: call.id, toolName: call.name, content, ...(isError ? { isError } : {}) };
}

/** How a call that failed is told to the model. */
export function toolErrorText(type: string, message: string): string {
  return `Error (${type}): ${message}`;
}

/** The JSON Schema form of a tool, as given to the model. */
export interface ToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Token counts, summed over the steps of a run. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** Input tokens read from the provider's prompt cache (part of `input_tokens`), when it says. */
  cached_input_tokens?: number;
  /** Input tokens written to the provider's prompt cache for 5 minutes (part of `input_tokens`), when it says. */
  cache_write_5m_tokens?: number;
  /** Input tokens written to the provider's prompt cache for 1 hour (part of `input_tokens`), when it says. */
  cache_write_1h_tokens?: number;
  /** Output tokens spent on reasoning (part of `output_tokens`), when the provider says. */
  reasoning_tokens?: number;
  /**
   * On one step's usage: the step wrote more to the prompt cache than it read although the step
   * before had cached its prefix, and what changed in between.
   */
  cache?: CacheNote;
}

/** Why a step missed the prompt cache: what changed since the step before cached its prefix. */
export type CacheMissReason = 'tools' | 'system_prompt' | 'compaction' | 'ttl_expired' | 'unknown';

/** The `cache` note of a step's usage. */
export interface CacheNote {
  reason: CacheMissReason;
  /** What happened, in words, with the step's read and written tokens. */
  message: string;
}
