import { timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ConfigurationError } from '../errors.ts';
import type { McpHttpTransport } from './options.ts';
import type { McpServerSdk } from './sdk.ts';
import { McpHttpSessions, RequestRefusal } from './http-sessions.ts';
import type { ModernMcpRoute } from './serve-modern.ts';

interface Serving {
  url?: string;
  close(): Promise<void>;
}

/** Serves one MCP server over this process's stdin/stdout. */
export async function serveStdio(sdk: McpServerSdk, create: () => McpServer): Promise<Serving> {
  const server = create();
  await server.connect(new sdk.StdioServerTransport());
  return { close: () => server.close() };
}

/**
 * Serves over Streamable HTTP at `/mcp`: 2026-07-28 requests through `modern` (stateless, when the
 * 2.x server SDK is installed); 2025-11-25 ones with a session per client (see
 * {@link McpHttpSessions}), or with `stateless`, a fresh MCP server and transport per POST, so a
 * client that disconnects leaves nothing behind (its run goes on in Temporal). Requests without the bearer token get 401 before any
 * MCP code sees them.
 */
export async function serveHttp(
  sdk: McpServerSdk,
  create: () => McpServer,
  options: McpHttpTransport,
  modern?: ModernMcpRoute,
): Promise<Serving> {
  if (typeof options.bearerToken !== 'string' || options.bearerToken.length < 16) {
    throw new ConfigurationError(
      'serveMcp over HTTP needs a `bearerToken` of at least 16 characters (e.g. crypto.randomUUID()); ' +
        'clients send it as `Authorization: Bearer <token>`.',
    );
  }
  const expected = Buffer.from(`Bearer ${options.bearerToken}`);
  const host = options.host ?? '127.0.0.1';
  const sessions = options.stateless
    ? undefined
    : new McpHttpSessions(sdk, create, options.sessionIdleTimeoutMs);
  const http = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (response.headersSent) return;
      if (error instanceof RequestRefusal) return reply(response, error.status, error.message);
      reply(response, 500, error instanceof Error ? error.message : String(error));
    });
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const given = Buffer.from(request.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      response.setHeader('www-authenticate', 'Bearer');
      return reply(response, 401, 'Unauthorized: send Authorization: Bearer <token>.');
    }
    if (new URL(request.url ?? '/', 'http://localhost').pathname !== '/mcp') {
      return reply(response, 404, 'Not found: the MCP endpoint is /mcp.');
    }
    const body = request.method === 'POST' ? await readJson(request) : undefined;
    if (modern && (await modern.claims(request, body))) return modern.serve(request, response, body);
    if (sessions) return sessions.handle(request, response, body);
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      return reply(response, 405, 'This server is stateless: send requests with POST.');
    }
    const server = create();
    const transport = new sdk.StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
  }
  http.listen(options.port, host);
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/mcp`,
    async close() {
      await sessions?.close();
      await modern?.close().catch(() => undefined);
      http.closeAllConnections();
      http.close();
      await once(http, 'close').catch(() => undefined);
    },
  };
}

/** The JSON body of a POST (a parse error is the client's: 400). */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new RequestRefusal(400, 'Parse error: the body is not JSON.');
  }
}

function reply(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
