import { STATUS_CODES } from 'node:http';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import { ToolkitError, UpstreamError } from '../errors.ts';
import type { SecretSet } from '../redaction.ts';
import { noteWriteSent } from '../tools/call-scope.ts';

export interface HttpTimeouts {
  /** Establishing the connection (TCP and TLS). Default 10 s. */
  connectMs?: number;
  /** From sending the request to the response headers. Default 30 s. */
  headersMs?: number;
  /** Between body chunks. Default 30 s. */
  bodyMs?: number;
}

export interface HttpRequest {
  method: string;
  url: string | URL;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Whether repeating the request is harmless; default: GET, HEAD and OPTIONS are. */
  idempotent?: boolean;
  /** Header values that are secrets: registered for redaction, dropped on a redirect to another origin. */
  secretHeaders?: string[];
  /** Every secret value this call uses is registered here, so the activity redacts it everywhere. */
  secrets?: SecretSet;
  timeouts?: HttpTimeouts;
  /** Bytes of response body read at most; a longer body fails the call. Default 10 MiB. */
  maxResponseBytes?: number;
  /** Redirects followed at most. Default 5. */
  maxRedirects?: number;
  /** Called before every request, redirects included; throws to refuse a URL (e.g. a private address). */
  checkUrl?: (url: URL) => Promise<void>;
  signal?: AbortSignal;
  dispatcher?: Dispatcher;
}

export interface HttpResponse {
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Uint8Array;
  /** The URL that answered, after redirects. */
  url: string;
  text(): string;
  json(): unknown;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS']);
const ALWAYS_SECRET = ['authorization', 'proxy-authorization', 'cookie'];
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Failures that prove the request never reached the server, so even a write may be repeated. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

const dispatchers = new Map<number, Agent>();

function dispatcherFor(connectMs: number): Agent {
  let agent = dispatchers.get(connectMs);
  if (!agent) {
    agent = new Agent({ connect: { timeout: connectMs } });
    dispatchers.set(connectMs, agent);
  }
  return agent;
}

/**
 * One HTTP exchange for a connector, on undici: timeouts for connecting, headers and body, a cap
 * on the body, redirects followed by hand so that credentials never follow a redirect to another
 * origin, and network failures as {@link UpstreamError}s that are retryable only when retrying is
 * safe (the request is idempotent, or it provably never reached the server). Non-2xx answers are
 * returned, not thrown: see `errorForResponse`.
 */
export async function httpRequest(request: HttpRequest): Promise<HttpResponse> {
  const method = request.method.toUpperCase();
  const idempotent = request.idempotent ?? IDEMPOTENT.has(method);
  const secretHeaders = new Set([
    ...ALWAYS_SECRET,
    ...(request.secretHeaders ?? []).map((h) => h.toLowerCase()),
  ]);
  let headers = lowerCaseKeys(request.headers ?? {});
  for (const [name, value] of Object.entries(headers)) {
    if (secretHeaders.has(name)) {
      request.secrets?.add(value);
      request.secrets?.add(value.replace(/^\S+\s+/, ''));
    }
  }
  let url = new URL(request.url);
  let currentMethod = method;
  let body = request.body;
  const timeouts = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, ...request.timeouts };
  const dispatcher = request.dispatcher ?? dispatcherFor(timeouts.connectMs);
  for (let redirects = 0; ; redirects++) {
    await request.checkUrl?.(url);
    let response: HttpResponse;
    try {
      response = await send(url, currentMethod, headers, body, idempotent, timeouts, dispatcher, request);
    } catch (error) {
      if (!idempotent && !(error instanceof UpstreamError && error.retryable)) noteWriteSent();
      throw error;
    }
    // A 401 proves the request was refused before it did anything; any other answer to a write may not.
    if (!idempotent && response.status !== 401) noteWriteSent();
    const location = response.headers.location;
    if (!REDIRECTS.has(response.status) || !location) return response;
    if (redirects >= (request.maxRedirects ?? 5)) {
      throw new UpstreamError(
        `Too many redirects (more than ${request.maxRedirects ?? 5}) from ${request.method} ${String(request.url)}`,
        {
          status: response.status,
        },
      );
    }
    const next = new URL(location, url);
    if (next.origin !== url.origin) {
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !secretHeaders.has(name)));
    }
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && currentMethod === 'POST')
    ) {
      currentMethod = 'GET';
      body = undefined;
      headers = Object.fromEntries(
        Object.entries(headers).filter(([name]) => name !== 'content-type' && name !== 'content-length'),
      );
    }
    url = next;
  }
}

async function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  idempotent: boolean,
  timeouts: Required<HttpTimeouts>,
  dispatcher: Dispatcher,
  request: HttpRequest,
): Promise<HttpResponse> {
  const where = `${method} ${url.origin}${url.pathname}`;
  let response: Dispatcher.ResponseData;
  try {
    response = await undiciRequest(url, {
      method: method,
      headers,
      body,
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      signal: request.signal,
      dispatcher,
    });
  } catch (error) {
    // A refusal of our own (a connect-time address check) is not a network failure.
    const refusal = ownError(error);
    if (refusal) throw refusal;
    throw networkError(error, where, idempotent);
  }
  const max = request.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > max) {
        response.body.destroy();
        throw new UpstreamError(
          `The response to ${where} is larger than ${max} bytes; ask for less (filters, paging).`,
          {
            status: response.statusCode,
          },
        );
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    throw networkError(error, where, idempotent);
  }
  const bytes = Buffer.concat(chunks);
  return {
    status: response.statusCode,
    statusText: STATUS_CODES[response.statusCode] ?? '',
    headers: flattenHeaders(response.headers),
    body: bytes,
    url: url.toString(),
    text: () => bytes.toString('utf8'),
    json: () => JSON.parse(bytes.toString('utf8')) as unknown,
  };
}

function networkError(error: unknown, where: string, idempotent: boolean): UpstreamError {
  const code = errorCode(error);
  const notSent = code !== undefined && NOT_SENT.has(code);
  const what = notSent ? 'could not connect' : 'failed after the request was sent';
  const advice = !notSent && !idempotent ? ' It may have taken effect, so it is not repeated.' : '';
  return new UpstreamError(`${where} ${what} (${code ?? (error as Error).message}).${advice}`, {
    retryable: notSent || idempotent,
    cause: error,
  });
}

function ownError(error: unknown): ToolkitError | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof ToolkitError) return current;
  }
  return undefined;
}

function errorCode(error: unknown): string | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as NodeJS.ErrnoException).code;
    if (code) return code;
  }
  return undefined;
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
