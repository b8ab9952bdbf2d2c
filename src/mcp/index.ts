/**
 * MCP both ways (`toolkit-agent/mcp`): the option types of an agent's `mcpServers` (tools from any
 * MCP server), the error an MCP tool's `isError` answer becomes, and `serveMcp` (agents as an MCP server).
 *
 * @module toolkit-agent/mcp
 */
import '../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
export type { McpServerConfig, McpServers, McpStdioServer, McpHttpServer } from './options.ts';
export { McpToolError } from './tool-error.ts';
export { serveMcp, type ServeMcpOptions, type McpServing, type McpHttpTransport } from './serve.ts';
