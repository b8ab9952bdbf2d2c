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

export type Message =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[]; reasoning?: string }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

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
}
