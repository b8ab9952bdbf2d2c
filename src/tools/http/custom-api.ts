/**
 * The `toolkit-agent/tools/custom_api` entry point.
 *
 * @module toolkit-agent/tools/custom_api
 */
import '../../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { CredentialRecord, CredentialStore } from '../../credentials/types.ts';
import { CredentialError } from '../../errors.ts';
import { errorForResponse } from '../../http/classify.ts';
import { httpRequest, type HttpResponse, type HttpTimeouts } from '../../http/request.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../connector-base.ts';
import { resolveCustomApiUrl } from './custom-api-url.ts';

const TEXT_TYPES =
  /^(text\/|application\/([\w.+-]*\+)?(json|xml|javascript|x-www-form-urlencoded|yaml|x-ndjson))/i;

const parameters = z.object({
  method: z.enum(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']).describe('HTTP method'),
  path: z
    .string()
    .min(1)
    .describe('Path appended to the API base URL, e.g. /v1/orders/42 (never a full URL)'),
  body: z
    .union([z.record(z.string(), z.unknown()), z.array(z.unknown())])
    .optional()
    .describe('JSON request body, for POST, PUT and PATCH'),
  params: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .describe('Query string parameters'),
  headers: z.record(z.string(), z.string()).optional().describe('Additional request headers'),
});

export interface CustomAPIToolOptions {
  credentialKey?: string;
  credentialStore?: CredentialStore;
  timeouts?: HttpTimeouts;
  /** Bytes of response body read at most. Default 5 MiB. */
  maxResponseBytes?: number;
}

/**
 * `custom_api` (docs/connectors.md): calls any HTTP API configured in the `custom_api` credential record.
 * `metadata.base_url` is the API root; `type` is `bearer`, `basic` (token `user:password`, or
 * `metadata.username` + token), `api_key` (header `metadata.header`, default `X-API-Key`, or query
 * parameter `metadata.query_param`) or `none`; `metadata.default_headers` go on every request, under
 * the call's own headers. Set `metadata.idempotency_header` (e.g. `Idempotency-Key`) to let writes be
 * retried safely with a key that is stable across retries of one tool call.
 *
 * @example
 * await store.put({ name: 'custom_api', type: 'bearer', token: process.env.API_TOKEN!,
 *   metadata: { base_url: 'https://api.example.com', default_headers: { 'X-Team': 'growth' } } });
 * const agent = new Agent({ llm, credentialStore: store, tools: [new CustomAPITool()] });
 */
export class CustomAPITool extends BaseConnectorTool<typeof parameters> {
  readonly name = 'custom_api';
  readonly description =
    'Call the configured HTTP API. Give the method and a path under its base URL, plus optional ' +
    'query params, JSON body and headers. Returns the status and the response body.';
  readonly parameters = parameters;
  protected override readonly defaultCredentialKey = 'custom_api';
  protected override readonly credentialMetadataExample = 'base_url=https://api.example.com';
  protected override readonly credentialTypes = ['bearer', 'basic', 'api_key', 'none'] as const;
  readonly #timeouts: HttpTimeouts | undefined;
  readonly #maxResponseBytes: number;

  constructor(opts: CustomAPIToolOptions = {}) {
    super(opts);
    this.#timeouts = opts.timeouts;
    this.#maxResponseBytes = opts.maxResponseBytes ?? 5 * 1024 * 1024;
  }

  async run(context: ToolContext, args: z.infer<typeof parameters>): Promise<ToolOutput> {
    const record = await this.getCredential(context);
    const baseUrl = record.metadata?.base_url;
    if (typeof baseUrl !== 'string' || !/^https?:\/\//.test(baseUrl)) {
      throw new CredentialError(
        `The credential "${this.credentialKey}" needs metadata.base_url, the API root such as https://api.example.com.`,
      );
    }
    const url = resolveCustomApiUrl(baseUrl, args.path);
    for (const [name, value] of Object.entries(args.params ?? {}))
      url.searchParams.append(name, String(value));

    const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' };
    Object.assign(
      headers,
      lowerCase(stringRecord(record.metadata?.default_headers)),
      lowerCase(args.headers ?? {}),
    );
    let body: string | undefined;
    if (args.body !== undefined && args.method !== 'GET' && args.method !== 'DELETE') {
      body = JSON.stringify(args.body);
      headers['content-type'] ??= 'application/json';
    }
    const secretHeaders = this.#authenticate(record, headers, url, context);
    const idempotencyHeader = record.metadata?.idempotency_header;
    let idempotent = args.method === 'GET';
    if (!idempotent && typeof idempotencyHeader === 'string') {
      headers[idempotencyHeader.toLowerCase()] = idempotencyKey(context);
      idempotent = true;
    }

    const response = await httpRequest({
      method: args.method,
      url,
      headers,
      body,
      idempotent,
      secretHeaders,
      secrets: context.secrets,
      timeouts: this.#timeouts,
      maxResponseBytes: this.#maxResponseBytes,
      signal: context.signal,
    });
    if (response.status < 200 || response.status >= 300) {
      throw errorForResponse(response, {
        method: args.method,
        service: `The API at ${url.origin}`,
        idempotent,
        credentialKey: this.credentialKey,
      });
    }
    return describeResponse(response);
  }

  /** Puts the record's auth on the request; returns the names of headers that carry a secret. */
  #authenticate(
    record: CredentialRecord,
    headers: Record<string, string>,
    url: URL,
    context: ToolContext,
  ): string[] {
    const metadata = record.metadata ?? {};
    switch (record.type) {
      case 'bearer':
        headers.authorization = `Bearer ${record.token}`;
        return ['authorization'];
      case 'basic': {
        const username = typeof metadata.username === 'string' ? metadata.username : undefined;
        const pair = username && !record.token.includes(':') ? `${username}:${record.token}` : record.token;
        if (!pair.includes(':')) {
          throw new CredentialError(
            `The basic credential "${this.credentialKey}" needs token "user:password", or metadata.username with the password as token.`,
          );
        }
        headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
        return ['authorization'];
      }
      case 'api_key': {
        if (typeof metadata.query_param === 'string') {
          url.searchParams.set(metadata.query_param, record.token);
          context.secrets.add(record.token);
          return [];
        }
        const name = (typeof metadata.header === 'string' ? metadata.header : 'X-API-Key').toLowerCase();
        headers[name] = record.token;
        return [name];
      }
      default:
        return [];
    }
  }
}

/** The same key on every retry of one tool call, and a different key for every other call. */
function idempotencyKey(context: ToolContext): string {
  return createHash('sha256').update(`${context.workflowId}\n${context.callId}`).digest('hex').slice(0, 32);
}

function describeResponse(response: HttpResponse): ToolOutput {
  const contentType = response.headers['content-type'] ?? '';
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const metadata: Record<string, unknown> = {
    status: response.status,
    content_type: contentType,
    url: stripQuery(response.url),
  };
  if (response.body.length === 0) return { text: `${status} (empty body)`, metadata };
  if (contentType && !TEXT_TYPES.test(contentType)) {
    return {
      text: `${status}: ${response.body.length} bytes of ${contentType} (binary, not shown)`,
      metadata,
    };
  }
  const text = response.text();
  if (/json/i.test(contentType)) {
    try {
      const json = response.json();
      return { text: `${status}\n${JSON.stringify(json)}`, metadata: { ...metadata, json } };
    } catch {
      // Not JSON after all: show it as text.
    }
  }
  return { text: `${status}\n${text}`, metadata };
}

function stripQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function stringRecord(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object') return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

function lowerCase(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
