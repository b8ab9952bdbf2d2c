/**
 * MCP both ways (`toolkit-agent/mcp`): the option types of an agent's `mcpServers` (tools from any
 * MCP server) and the error an MCP tool's `isError` answer becomes.
 */
export type { McpServerConfig, McpServers, McpStdioServer, McpHttpServer } from './options.ts';
export { McpToolError } from './errors.ts';
