import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutput } from '../tools/connector-base.ts';
import { McpToolError } from './tool-error.ts';

type ContentBlock = CallToolResult['content'][number];

/**
 * An MCP tool's answer as our tool output: text blocks as they are, images, audio and resources
 * described in a line each (with the text of a text resource), `structuredContent` in
 * `metadata.structuredContent`. An answer with `isError` becomes a {@link McpToolError} carrying the
 * server's text, which the run reports as `tool_failed`.
 */
export function toToolOutput(server: string, tool: string, result: CallToolResult): ToolOutput {
  const text = (result.content ?? []).map(describeBlock).join('\n');
  if (result.isError) {
    throw new McpToolError(
      server,
      tool,
      text || `The MCP tool "${tool}" of server "${server}" failed without a message.`,
    );
  }
  const metadata: Record<string, unknown> = { mcp_server: server, mcp_tool: tool };
  if (result.structuredContent !== undefined) metadata.structuredContent = result.structuredContent;
  const fallback = result.structuredContent !== undefined ? JSON.stringify(result.structuredContent) : '';
  return { text: text || fallback, metadata };
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case 'resource': {
      const { resource } = block;
      const kind = resource.mimeType ? `, ${resource.mimeType}` : '';
      if ('text' in resource && typeof resource.text === 'string') {
        return `[resource: ${resource.uri}${kind}]\n${resource.text}`;
      }
      const size =
        'blob' in resource && typeof resource.blob === 'string'
          ? `, ${base64Bytes(resource.blob)} bytes`
          : '';
      return `[resource: ${resource.uri}${kind}${size}]`;
    }
    case 'resource_link': {
      const kind = block.mimeType ? `, ${block.mimeType}` : '';
      const about = block.description ? `: ${block.description}` : '';
      return `[resource link: ${block.name} <${block.uri}>${kind}${about}]`;
    }
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.floor((data.length * 3) / 4) - padding;
}
