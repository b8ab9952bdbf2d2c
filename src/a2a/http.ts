import { timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { ConfigurationError } from '../errors.ts';
import type { A2aCaller, A2aHttpTransport } from './options.ts';
import type { A2aServerSdk } from './sdk.ts';

const CARD_PATH = '/.well-known/agent-card.json';

/** What serves each agent, by the first segment of the path (`''` for the root). */
export interface A2aRoutes {
  handler(agent: string): A2ARequestHandler | undefined;
}

interface Serving {
  url: string;
  close(): Promise<void>;
}

/** Which callers a transport lets in: the bearer token (compared in constant time) or `authorize`. */
function callerCheck(
  options: A2aHttpTransport,
): (request: IncomingMessage) => Promise<A2aCaller | undefined> {
  if ((options.bearerToken === undefined) === (options.authorize === undefined)) {
    throw new ConfigurationError(
      'serveA2a needs either `transport.bearerToken` or `transport.authorize`, not both.',
    );
  }
  if (options.authorize) {
    const authorize = options.authorize;
    return async (request) => authorize(request);
  }
  if (typeof options.bearerToken !== 'string' || options.bearerToken.length < 16) {
    throw new ConfigurationError(
      'serveA2a needs a `bearerToken` of at least 16 characters (e.g. crypto.randomUUID()); ' +
        'clients send it as `Authorization: Bearer <token>`.',
    );
  }
  const expected = Buffer.from(`Bearer ${options.bearerToken}`);
  return async (request) => {
    const given = Buffer.from(request.headers.authorization ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected) ? {} : undefined;
  };
}

/**
 * Serves agents over A2A's JSON-RPC binding with Node's HTTP server: cards are public (GET), every
 * POST is authorized first (401 otherwise), then handed to the SDK's JSON-RPC transport handler;
 * a streaming answer goes out as server-sent events, and a client that leaves stops only its stream
 * (the task goes on in Temporal).
 */
export async function serveA2aHttp(
  sdk: A2aServerSdk,
  routes: (baseUrl: string) => A2aRoutes,
  options: A2aHttpTransport,
): Promise<Serving> {
  const check = callerCheck(options);
  const host = options.host ?? '127.0.0.1';
  const served: { routes?: A2aRoutes } = {};
  const handlers = new Map<A2ARequestHandler, InstanceType<A2aServerSdk['JsonRpcTransportHandler']>>();
  const http = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (response.headersSent) return void response.end();
      reply(response, 500, { error: error instanceof Error ? error.message : String(error) });
    });
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '');
    const cardRequest = path.endsWith(CARD_PATH);
    const agent = decodeURIComponent((cardRequest ? path.slice(0, -CARD_PATH.length) : path).slice(1));
    const handler = served.routes?.handler(agent);
    if (!handler) return reply(response, 404, { error: `No agent at ${path || '/'}.` });
    if (cardRequest) {
      if (request.method !== 'GET') return reply(response, 405, { error: 'Read the agent card with GET.' });
      return reply(response, 200, sdk.AgentCard.toJSON(await handler.getAgentCard()));
    }
    if (request.method !== 'POST') {
      response.setHeader('allow', 'POST');
      return reply(response, 405, { error: 'Send JSON-RPC requests with POST.' });
    }
    const caller = await check(request);
    if (!caller) {
      response.setHeader('www-authenticate', 'Bearer');
      return reply(
        response,
        401,
        rpcError(null, -32001, 'Unauthorized: send Authorization: Bearer <token>.'),
      );
    }
    const body = await readJson(request);
    if (body === undefined)
      return reply(response, 200, rpcError(null, -32700, 'Parse error: the body is not JSON.'));
    const id = (body as { id?: string | number }).id ?? null;
    const version = request.headers['a2a-version'];
    const context = new sdk.ServerCallContext({
      ...(caller.tenant ? { tenant: caller.tenant } : {}),
      ...(typeof version === 'string' ? { requestedVersion: version } : {}),
    });
    let rpc = handlers.get(handler);
    if (!rpc) handlers.set(handler, (rpc = new sdk.JsonRpcTransportHandler(handler)));
    let answer: Awaited<ReturnType<typeof rpc.handle>>;
    try {
      sdk.validateVersion(context.requestedVersion, await handler.getAgentCard(), 'JSONRPC');
      answer = await rpc.handle(body as Record<string, unknown>, context);
    } catch (error) {
      return reply(response, 200, {
        jsonrpc: '2.0',
        id,
        error: sdk.JsonRpcTransportHandler.mapToJSONRPCError(error),
      });
    }
    if (!(Symbol.asyncIterator in answer)) return reply(response, 200, answer);
    await stream(response, answer, id, sdk);
  }
  http.listen(options.port, host);
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  const url = (options.publicUrl ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(
    /\/+$/,
    '',
  );
  served.routes = routes(url);
  return {
    url,
    async close() {
      http.closeAllConnections();
      http.close();
      await once(http, 'close').catch(() => undefined);
    },
  };
}

/** Writes a stream of JSON-RPC answers as server-sent events; a client that leaves ends the stream. */
async function stream(
  response: ServerResponse,
  answers: AsyncGenerator<unknown, void, undefined>,
  id: string | number | null,
  sdk: A2aServerSdk,
): Promise<void> {
  let first: IteratorResult<unknown, void>;
  try {
    first = await answers.next();
  } catch (error) {
    return reply(response, 200, {
      jsonrpc: '2.0',
      id,
      error: sdk.JsonRpcTransportHandler.mapToJSONRPCError(error),
    });
  }
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  response.on('close', () => void answers.return(undefined).catch(() => undefined));
  try {
    if (!first.done) response.write(`data: ${JSON.stringify(first.value)}\n\n`);
    for await (const answer of { [Symbol.asyncIterator]: () => answers }) {
      if (response.destroyed) break;
      response.write(`data: ${JSON.stringify(answer)}\n\n`);
    }
  } catch (error) {
    const failure = { jsonrpc: '2.0', id, error: sdk.JsonRpcTransportHandler.mapToJSONRPCError(error) };
    if (!response.destroyed) response.write(`event: error\ndata: ${JSON.stringify(failure)}\n\n`);
  } finally {
    if (!response.writableEnded) response.end();
  }
}

/** The JSON body of a POST; undefined when it is not JSON. */
async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function rpcError(id: string | number | null, code: number, message: string): unknown {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
