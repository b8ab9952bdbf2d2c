import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Payload } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aes-gcm-codec.ts';
import { ConfigurationError } from '../errors.ts';

/**
 * What an {@link CodecServerOptions.authorize} check sees of a request: what the Temporal UI really
 * sends. Every UI request carries `Origin` and `X-Namespace`; `Authorization` comes only when the UI
 * is set to pass the user's access token, which it does only to an `https://` endpoint and only when
 * the UI has logins; cookies come only when the UI is set to include cross-origin credentials.
 * `temporal workflow show --codec-endpoint` sends `X-Namespace` (and `--codec-auth` as `Authorization`).
 */
export interface CodecRequest {
  /** The `Authorization` header, when the UI passes the user's access token (or `--codec-auth`). */
  authorization: string | undefined;
  /** The `X-Namespace` header: the namespace whose payloads are asked for. */
  namespace: string | undefined;
  /** The `Origin` header: the UI's origin for a browser request; undefined for other clients. */
  origin: string | undefined;
  /** The request's cookies by name (sent by the UI only with "include cross-origin credentials"). */
  cookies: Record<string, string>;
  headers: IncomingHttpHeaders;
}

export interface CodecServerOptions {
  /** The payload keys, by id (base64, 32 bytes each): the same as the workers' `encryption.keys`. */
  keys: Record<string, string>;
  /** The key `/encode` uses; needed when several keys are given (default: the only one). */
  currentKeyId?: string;
  /** Origins of Temporal UIs allowed to call from a browser, e.g. `['http://localhost:8233']`; `'*'` for any. */
  allowedOrigins: string[];
  /**
   * Decides whether a request may encode or decode. Required: without it the server refuses to
   * start, unless `allowUnauthenticated: true` says that anyone who can reach it may decrypt.
   */
  authorize?: (request: CodecRequest) => boolean | Promise<boolean>;
  /**
   * Serve every request without an `authorize` check (a codec server on a private network, or in
   * tests). Default false: anyone who can reach an unauthenticated codec server can decrypt every run.
   */
  allowUnauthenticated?: boolean;
  /** The largest request body accepted. Default 8 MB. */
  maxBodyBytes?: number;
  /**
   * Serve `https://` with this certificate and key (PEM). A UI with logins passes the user's access
   * token (`Authorization: Bearer …`) only to an `https://` codec endpoint.
   */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/**
 * An HTTP server for Temporal's remote codec protocol, so operators can read encrypted runs in the
 * Temporal UI (`--ui-codec-endpoint`, or the UI's "Codec Server" setting) and with
 * `temporal workflow show --codec-endpoint`. `POST /decode` and `POST /encode` take and answer
 * `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }`; browsers from `allowedOrigins` get the
 * CORS answers the UI needs. Failures' messages and stack traces are payloads too (`encodedAttributes`),
 * decoded like any other. It refuses to start without `authorize` unless `allowUnauthenticated: true`.
 * Call `listen(port)` on the result.
 *
 * @example
 * // A local UI over http: it sends its Origin and namespace, no token. Bind to loopback.
 * const server = createCodecServer({
 *   keys: { k1: process.env.PAYLOAD_KEY! },
 *   allowedOrigins: ['http://localhost:8233'],
 *   authorize: authorizeUiOrigin({ origins: ['http://localhost:8233'], namespaces: ['default'] }),
 * });
 * server.listen(8888, '127.0.0.1');
 */
export function createCodecServer(options: CodecServerOptions): Server | HttpsServer {
  const ids = Object.keys(options.keys ?? {});
  const currentKeyId = options.currentKeyId ?? (ids.length === 1 ? ids[0]! : undefined);
  if (!currentKeyId) {
    throw new ConfigurationError(
      `createCodecServer got several keys (${ids.join(', ')}); name the one /encode uses as currentKeyId.`,
    );
  }
  if (!options.authorize && options.allowUnauthenticated !== true) {
    throw new ConfigurationError(
      'createCodecServer needs an authorize check (e.g. a bearer token the Temporal UI sends): without one, ' +
        'anyone who can reach it decrypts every run. Pass authorize, or allowUnauthenticated: true to serve anyone.',
    );
  }
  const codec = new AesGcmPayloadCodec({ keys: options.keys, currentKeyId });
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const anyOrigin = options.allowedOrigins.includes('*');

  const listener = (request: IncomingMessage, response: ServerResponse) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        reply(response, 500, { message: `The codec failed: ${(error as Error).message}` });
      else response.destroy();
    });
  };
  return options.tls
    ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, listener)
    : createServer(listener);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const origin = request.headers.origin;
    if (origin !== undefined) {
      if (!anyOrigin && !options.allowedOrigins.includes(origin)) {
        reply(response, 403, { message: `Origin ${origin} is not in the codec server's allowedOrigins.` });
        return;
      }
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
      response.setHeader('Vary', 'Origin');
    }
    if (request.method === 'OPTIONS') {
      response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      response.setHeader('Access-Control-Allow-Headers', 'Content-Type, X-Namespace, Authorization');
      response.setHeader('Access-Control-Max-Age', '600');
      response.writeHead(204).end();
      return;
    }
    const path = new URL(request.url ?? '/', 'http://codec').pathname;
    const action = path.endsWith('/decode') ? 'decode' : path.endsWith('/encode') ? 'encode' : undefined;
    if (request.method !== 'POST' || !action) {
      reply(response, 404, { message: 'The codec server answers POST /encode and POST /decode.' });
      return;
    }
    const namespace = request.headers['x-namespace'];
    const allowed = options.authorize
      ? await options.authorize({
          authorization: request.headers.authorization,
          namespace: Array.isArray(namespace) ? namespace[0] : namespace,
          origin,
          cookies: parseCookies(request.headers.cookie),
          headers: request.headers,
        })
      : true;
    if (!allowed) {
      reply(response, 401, { message: 'Not authorized to use this codec server.' });
      return;
    }
    const body = await readBody(request, maxBodyBytes);
    if (body === undefined) {
      reply(response, 413, { message: `The request body is larger than ${maxBodyBytes} bytes.` });
      return;
    }
    let payloads: Payload[];
    try {
      const parsed = JSON.parse(body) as { payloads?: JsonPayload[] };
      if (!Array.isArray(parsed.payloads)) throw new Error('no "payloads" array');
      payloads = parsed.payloads.map(fromJson);
    } catch (error) {
      reply(response, 400, {
        message: `Expected {"payloads":[{"metadata":{...},"data":"..."}]}: ${(error as Error).message}.`,
      });
      return;
    }
    const result = action === 'decode' ? await codec.decode(payloads) : await codec.encode(payloads);
    reply(response, 200, { payloads: result.map(toJson) });
  }
}

function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at < 1) continue;
    const value = pair.slice(at + 1).trim();
    try {
      cookies[pair.slice(0, at).trim()] = decodeURIComponent(value);
    } catch {
      cookies[pair.slice(0, at).trim()] = value;
    }
  }
  return cookies;
}

function fromJson(payload: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
    ),
    data: Buffer.from(payload.data ?? '', 'base64'),
  };
}

function toJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [
        key,
        Buffer.from(value ?? new Uint8Array()).toString('base64'),
      ]),
    ),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}

async function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
