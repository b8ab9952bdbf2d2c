/**
 * A small MCP server over stdio, written with the official SDK: the tool source of
 * examples/mcp-tools.ts (the agent's worker starts it as a child process). Any MCP server works the
 * same way: `npx -y @modelcontextprotocol/server-everything`, a Python server, a binary.
 *
 *   node examples/mcp/inventory-server.ts   # speaks MCP on stdin/stdout
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const STOCK: Record<string, number> = { 'blue-mug': 12, 'red-mug': 0, 'green-mug': 3 };

const server = new McpServer({ name: 'inventory', version: '1.0.0' });

server.registerTool(
  'stock_level',
  {
    description: 'How many of a product are in the warehouse',
    inputSchema: { sku: z.string().describe('The product, e.g. blue-mug') },
    annotations: { readOnlyHint: true },
  },
  ({ sku }) => ({
    content: [{ type: 'text', text: sku in STOCK ? `${sku}: ${STOCK[sku]} in stock` : `No product ${sku}.` }],
  }),
);

server.registerTool(
  'list_products',
  { description: 'The products the warehouse knows', inputSchema: {}, annotations: { readOnlyHint: true } },
  () => ({ content: [{ type: 'text', text: Object.keys(STOCK).join(', ') }] }),
);

await server.connect(new StdioServerTransport());
