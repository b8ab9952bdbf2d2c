import { ToolkitError } from '../errors.ts';

/** An MCP tool answered with `isError: true`; the message is the server's own text. Goes back to the model. */
export class McpToolError extends ToolkitError {
  readonly server: string;
  readonly tool: string;
  constructor(server: string, tool: string, message: string) {
    super('MCP_TOOL', message);
    this.server = server;
    this.tool = tool;
  }
}
