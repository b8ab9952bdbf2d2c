import { Readable } from 'node:stream';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { startRecordingServer, type RecordingServer } from './http-server.ts';

/**
 * An MCP server of protocol 2026-07-28 only, built with the 2.x server SDK (`createMcpHandler` with
 * `legacy: 'reject'`: a 2025-11-25 client's `initialize` is refused). Its one tool `add` sums two
 * numbers. It records every HTTP request, so a test sees which protocol version each one spoke.
 */
export async function startModernMcpServer(): Promise<RecordingServer> {
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'modern-fixture', version: '1.0.0' });
      server.registerTool(
        'add',
        {
          description: 'Adds two numbers.',
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          annotations: { readOnlyHint: true },
        },
        ({ a, b }) => ({ content: [{ type: 'text', text: `The sum is ${a + b}.` }] }),
      );
      return server;
    },
    { legacy: 'reject' },
  );
  return startRecordingServer(async (request, response) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    const answer = await handler.fetch(
      new Request(`http://127.0.0.1${request.path}`, {
        method: request.method,
        headers,
        ...(request.method === 'POST' ? { body: request.body } : {}),
      }),
    );
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => (out[name] = value));
    response.writeHead(answer.status, out);
    if (!answer.body) return void response.end();
    Readable.fromWeb(answer.body).pipe(response);
  });
}
