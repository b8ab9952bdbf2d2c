/**
 * Frontend tools (docs/ag-ui.md, "Frontend tools"): tools a client offers for one turn and runs
 * itself. Names and shapes shared by workflow, activity and client code; no imports.
 */

/**
 * A tool the client offers the model for one turn and runs itself (AG-UI's `RunAgentInput.tools`):
 * its name, what it does, and the JSON Schema of its arguments. Never code and never a secret: it
 * travels in the turn's input.
 */
export interface FrontendTool {
  name: string;
  description: string;
  /** The JSON Schema of the arguments (an object schema); absent: the tool takes none. */
  parameters?: Record<string, unknown>;
}

/** The result a client sends for a frontend tool call its turn waits on (`toolkit.toolResult`). */
export interface ToolResultInput {
  callId: string;
  /** What the tool returned, as the model sees it. */
  content: string;
  /** Why the tool failed, when it did: the model sees the call as failed, with this and `content`. */
  error?: string;
}

export const TOOL_RESULT_UPDATE = 'toolkit.toolResult';
/** The query of the frontend tool calls that wait for their result: their ids. */
export const PENDING_TOOL_CALLS_QUERY = 'toolkit.pendingToolCalls';

/** The longest result a frontend tool call takes (it is recorded in the workflow's history). */
export const MAX_TOOL_RESULT_CHARS = 200_000;
