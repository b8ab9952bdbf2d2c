import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import type { McpServerV2Sdk } from './sdk.ts';

/** The 2026-07-28 side of one `/mcp` endpoint, next to the 2025-11-25 sessions. */
export interface ModernMcpRoute {
  /** Whether the 2.x SDK classifies the request as 2026-07-28 traffic (it carries the per-request envelope). */
  claims(request: IncomingMessage, body: unknown): Promise<boolean>;
  /** Serves one 2026-07-28 request with a fresh server (the protocol is stateless). */
  serve(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void>;
  /** Aborts the requests in flight (their runs go on in Temporal). */
  close(): Promise<void>;
}

/**
 * Routes 2026-07-28 requests to the 2.x SDK's `createMcpHandler` (modern only: `legacy: 'reject'`),
 * as the SDK recommends for keeping a sessionful 2025-11-25 endpoint on the same URL: the caller
 * sends everything else (`initialize`, session requests, GET and DELETE) to its sessions.
 */
export function modernMcpRoute(sdk: McpServerV2Sdk, create: () => McpServerV2): ModernMcpRoute {
  const handler = sdk.createMcpHandler(create, { legacy: 'reject' });
  return {
    async claims(request, body) {
      return !(await sdk.isLegacyRequest(toWebRequest(request, body), body));
    },
    async serve(request, response, body) {
      const answer = await handler.fetch(toWebRequest(request, body), { parsedBody: body });
      const headers: Record<string, string> = {};
      answer.headers.forEach((value, name) => (headers[name] = value));
      response.writeHead(answer.status, headers);
      if (!answer.body) return void response.end();
      const stream = Readable.fromWeb(answer.body as NodeReadableStream<Uint8Array>);
      response.on('close', () => stream.destroy());
      stream.pipe(response);
    },
    close: () => handler.close(),
  };
}

/** The web-standard request of a Node one whose JSON body was already read. */
function toWebRequest(request: IncomingMessage, body: unknown): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(request.url ?? '/mcp', 'http://localhost'), {
    method: request.method ?? 'GET',
    headers,
    ...(request.method === 'POST' ? { body: JSON.stringify(body) } : {}),
  });
}
