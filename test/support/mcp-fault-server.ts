/**
 * A small stdio MCP server (built with the official SDK) for the fault cases a public server cannot
 * stage: every call is appended to `<dir>/calls.log` before anything else, and when the file
 * `<dir>/drop-<tool>` exists the server deletes it and exits without answering, so the caller's
 * answer is lost after the call reached the server. `unlock` registers one more tool at run time
 * (the SDK then sends `notifications/tools/list_changed`).
 *
 * Usage: node test/support/mcp-fault-server.ts <dir>
 */
import { appendFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const dir = process.argv[2];
if (!dir) throw new Error('Usage: mcp-fault-server.ts <dir>');

function record(tool: string, args: unknown): void {
  appendFileSync(join(dir!, 'calls.log'), `${JSON.stringify({ tool, args, pid: process.pid })}\n`);
  const drop = join(dir!, `drop-${tool}`);
  if (existsSync(drop)) {
    rmSync(drop);
    process.exit(3); // the call reached us; its answer never leaves
  }
}

const server = new McpServer({ name: 'fault-server', version: '1.0.0' });

server.registerTool(
  'append_line',
  {
    description: 'Appends a line to the journal (not idempotent: every call adds a line)',
    inputSchema: { line: z.string().describe('The text to append') },
  },
  ({ line }) => {
    record('append_line', { line });
    return { content: [{ type: 'text', text: `Appended: ${line}` }] };
  },
);

server.registerTool(
  'read_lines',
  {
    description: 'Reads the journal',
    inputSchema: {},
    annotations: { readOnlyHint: true },
  },
  () => {
    record('read_lines', {});
    return { content: [{ type: 'text', text: 'journal: 3 lines' }] };
  },
);

server.registerTool('unlock', { description: 'Unlocks the secret door tool', inputSchema: {} }, () => {
  record('unlock', {});
  server.registerTool(
    'secret_door',
    { description: 'Opens the secret door', inputSchema: {}, annotations: { readOnlyHint: true } },
    () => ({ content: [{ type: 'text', text: 'The door is open.' }] }),
  );
  return { content: [{ type: 'text', text: 'Unlocked.' }] };
});

await server.connect(new StdioServerTransport());
