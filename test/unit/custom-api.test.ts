import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import type { CredentialRecord } from '../../src/credentials/types.ts';
import { CredentialError, ToolInputError, UpstreamError } from '../../src/errors.ts';
import { CustomAPITool } from '../../src/tools/http/custom-api.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { toolContext } from '../support/tool-context.ts';

let api: RecordingServer;
let other: RecordingServer;

beforeAll(async () => {
  other = await startRecordingServer((_request, response) => json(response, 200, { where: 'other origin' }));
  api = await startRecordingServer((request, response) => {
    switch (request.path) {
      case '/v1/redirect-away':
        response.writeHead(302, { location: `${other.url}/landing` }).end();
        return;
      case '/v1/redirect-here':
        response.writeHead(307, { location: '/v1/echo' }).end();
        return;
      case '/v1/fail':
        response.writeHead(500, { 'content-type': 'text/plain' }).end(`boom ${'x'.repeat(5000)}`);
        return;
      case '/v1/missing':
        json(response, 404, { error: 'no such order' });
        return;
      case '/v1/text':
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('plain words ✓');
        return;
      case '/v1/binary':
        response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(2048, 7));
        return;
      case '/v1/large':
        response.writeHead(200, { 'content-type': 'text/plain' }).end('y'.repeat(100_000));
        return;
      default:
        json(response, 200, { ok: true, path: request.path });
    }
  });
});
afterAll(async () => {
  await api?.close();
  await other?.close();
});
afterEach(() => {
  api.requests.length = 0;
  other.requests.length = 0;
});

async function call(
  record: Partial<CredentialRecord> & { metadata?: Record<string, unknown> },
  args: Record<string, unknown>,
  tool = new CustomAPITool(),
) {
  const store = new InMemoryCredentialStore();
  await store.put({
    name: 'custom_api',
    type: 'bearer',
    token: 'tok-123456',
    ...record,
    metadata: { base_url: `${api.url}/v1`, ...record.metadata },
  });
  const context = toolContext(store);
  const output = await tool.run(context, tool.parameters.parse(args));
  return { output, context };
}

describe('custom_api authentication', () => {
  it.each([
    [{ type: 'bearer' as const, token: 'tok-bearer' }, 'authorization', 'Bearer tok-bearer'],
    [
      { type: 'basic' as const, token: 'ada:pa55word' },
      'authorization',
      `Basic ${Buffer.from('ada:pa55word').toString('base64')}`,
    ],
    [
      { type: 'basic' as const, token: 'pa55word', metadata: { username: 'ada' } },
      'authorization',
      `Basic ${Buffer.from('ada:pa55word').toString('base64')}`,
    ],
    [{ type: 'api_key' as const, token: 'key-1' }, 'x-api-key', 'key-1'],
    [
      { type: 'api_key' as const, token: 'key-2', metadata: { header: 'X-Custom-Key' } },
      'x-custom-key',
      'key-2',
    ],
  ])('%o puts %s on the request', async (record, header, value) => {
    await call(record, { method: 'GET', path: '/orders' });
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]!.headers[header]).toBe(value);
  });

  it('puts an api_key in the query parameter the record names, and registers it for redaction', async () => {
    const { context } = await call(
      { type: 'api_key', token: 'key-in-query', metadata: { query_param: 'apikey' } },
      { method: 'GET', path: '/orders' },
    );
    expect(api.requests[0]!.query.get('apikey')).toBe('key-in-query');
    expect(api.requests[0]!.headers.authorization).toBeUndefined();
    expect(context.secrets.redact('apikey=key-in-query')).toBe('apikey=[REDACTED]');
  });

  it('sends no credentials for type none', async () => {
    await call({ type: 'none', token: '' }, { method: 'GET', path: '/status' });
    expect(api.requests[0]!.headers.authorization).toBeUndefined();
    expect(api.requests[0]!.headers['x-api-key']).toBeUndefined();
  });
});

describe('custom_api requests', () => {
  it('merges default headers under the call headers, and params and a JSON body arrive intact', async () => {
    const body = { name: 'Zoë', items: [{ sku: 'A-1', qty: 2 }], note: null, nested: { deep: true } };
    await call(
      { metadata: { default_headers: { 'X-Team': 'default-team', 'X-Only-Default': 'kept' } } },
      {
        method: 'POST',
        path: '/orders',
        params: { dry_run: true, limit: 5, q: 'a b&c' },
        headers: { 'X-Team': 'call-team' },
        body,
      },
    );
    const [received] = api.requests;
    expect(received!.method).toBe('POST');
    expect(received!.path).toBe('/v1/orders');
    expect(received!.headers['x-team']).toBe('call-team');
    expect(received!.headers['x-only-default']).toBe('kept');
    expect(received!.headers['content-type']).toBe('application/json');
    expect(Object.fromEntries(received!.query)).toEqual({ dry_run: 'true', limit: '5', q: 'a b&c' });
    expect(JSON.parse(received!.body)).toEqual(body);
  });

  it('keeps the credential over an Authorization header the model tries to set', async () => {
    await call(
      { token: 'real-token' },
      { method: 'GET', path: '/x', headers: { Authorization: 'Bearer forged' } },
    );
    expect(api.requests[0]!.headers.authorization).toBe('Bearer real-token');
  });

  it.each([
    'http://evil.test/steal',
    'https:evil.test',
    '//evil.test/steal',
    '\\\\evil.test\\steal',
    '/\\evil.test',
    '%2F%2Fevil.test/steal',
    '/%2F%2Fevil.test',
    '%252F%252Fevil.test',
    '/../admin',
    '/v2/..%2F..%2Fadmin',
    '/%252e%252e/admin',
    'javascript:alert(1)',
    '/ok\r\nHost: evil.test',
  ])('refuses the path %j before any request is sent', async (path) => {
    const error = await call({}, { method: 'GET', path }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolInputError);
    expect((error as Error).message).toMatch(/refused|leaves|broken/);
    expect(api.requests).toHaveLength(0);
    expect(other.requests).toHaveLength(0);
  });

  it('drops Authorization on a redirect to another origin, and keeps it on the same origin', async () => {
    await call({ token: 'secret-token' }, { method: 'GET', path: '/redirect-away' });
    expect(other.requests).toHaveLength(1);
    expect(other.requests[0]!.headers.authorization).toBeUndefined();

    await call({ token: 'secret-token' }, { method: 'GET', path: '/redirect-here' });
    expect(api.requests.at(-1)!.path).toBe('/v1/echo');
    expect(api.requests.at(-1)!.headers.authorization).toBe('Bearer secret-token');
  });
});

describe('custom_api responses', () => {
  it('returns JSON as text and structured metadata', async () => {
    const { output } = await call({}, { method: 'GET', path: '/orders/7' });
    expect(output.text).toBe('HTTP 200 OK\n{"ok":true,"path":"/v1/orders/7"}');
    expect(output.metadata).toMatchObject({ status: 200, json: { ok: true, path: '/v1/orders/7' } });
  });

  it('returns text as it is, and describes binary bodies instead of dumping them', async () => {
    expect((await call({}, { method: 'GET', path: '/text' })).output.text).toBe('HTTP 200 OK\nplain words ✓');
    expect((await call({}, { method: 'GET', path: '/binary' })).output.text).toBe(
      'HTTP 200 OK: 2048 bytes of image/png (binary, not shown)',
    );
  });

  it('turns a non-2xx answer into a clear error with the status and a capped body', async () => {
    const error = (await call({}, { method: 'GET', path: '/fail' }).catch(
      (e: unknown) => e,
    )) as UpstreamError;
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.status).toBe(500);
    expect(error.retryable).toBe(true);
    expect(error.message).toMatch(
      /answered 500 Internal Server Error for GET http:\/\/127\.0\.0\.1:\d+\/v1\/fail: boom x+/,
    );
    expect(error.message.length).toBeLessThan(1200);

    const missing = await call({}, { method: 'GET', path: '/missing' }).catch((e: unknown) => e);
    expect((missing as Error).name).toBe('NotFoundError');
    expect((missing as Error).message).toContain('no such order');
  });

  it('does not mark a failed POST retryable, unless an idempotency header makes it safe', async () => {
    const plain = (await call({}, { method: 'POST', path: '/fail', body: {} }).catch(
      (e: unknown) => e,
    )) as UpstreamError;
    expect(plain.retryable).toBe(false);

    const keyed = (await call(
      { metadata: { idempotency_header: 'Idempotency-Key' } },
      { method: 'POST', path: '/fail', body: {} },
    ).catch((e: unknown) => e)) as UpstreamError;
    expect(keyed.retryable).toBe(true);
    await call(
      { metadata: { idempotency_header: 'Idempotency-Key' } },
      { method: 'POST', path: '/fail', body: {} },
    ).catch(() => undefined);
    const keys = api.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBeUndefined();
    expect(keys[1]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[2]).toBe(keys[1]); // the same tool call retried sends the same key
  });

  it('fails a response larger than the cap instead of reading it all', async () => {
    const tool = new CustomAPITool({ maxResponseBytes: 10_000 });
    await expect(call({}, { method: 'GET', path: '/large' }, tool)).rejects.toThrow(
      /larger than 10000 bytes/,
    );
  });
});

describe('custom_api credentials', () => {
  it('fails before any request when the record is missing, of the wrong type, or has no base_url', async () => {
    const tool = new CustomAPITool();
    const empty = toolContext(new InMemoryCredentialStore());
    await expect(tool.run(empty, { method: 'GET', path: '/x' })).rejects.toThrow(
      /No credential "custom_api"/,
    );

    await expect(call({ type: 'oauth2' }, { method: 'GET', path: '/x' })).rejects.toThrow(
      /type "oauth2", which custom_api cannot use.*'bearer', 'basic', 'api_key', 'none'/,
    );
    const store = new InMemoryCredentialStore();
    await store.put({ name: 'custom_api', type: 'bearer', token: 't-1234' });
    const error = await tool.run(toolContext(store), { method: 'GET', path: '/x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialError);
    expect((error as Error).message).toMatch(/needs metadata\.base_url/);
    expect(api.requests).toHaveLength(0);
  });

  it('reads another record when given a credentialKey', async () => {
    const store = new InMemoryCredentialStore();
    await store.put({
      name: 'billing_api',
      type: 'bearer',
      token: 'billing-token',
      metadata: { base_url: `${api.url}/v1` },
    });
    const tool = new CustomAPITool({ credentialKey: 'billing_api' });
    await tool.run(toolContext(store), { method: 'GET', path: '/invoices' });
    expect(api.requests[0]!.headers.authorization).toBe('Bearer billing-token');
  });
});
