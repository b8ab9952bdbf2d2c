import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitError, UpstreamError } from '../../src/errors.ts';
import { errorForResponse } from '../../src/http/classify.ts';
import { httpRequest } from '../../src/http/request.ts';
import { parseRetryAfter } from '../../src/http/retry-after.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { freePort } from '../../src/embedded/free-port.ts';

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer((request, response) => {
    if (request.path === '/hang') return; // headers never come
    if (request.path === '/limited')
      return json(response, 429, { error: 'slow down' }, { 'retry-after': '7' });
    if (request.path === '/unavailable') return json(response, 503, { error: 'maintenance' });
    json(response, 200, { ok: true });
  });
});
afterAll(() => server?.close());

describe('httpRequest failures', () => {
  it('retries a write that provably never reached the server', async () => {
    const port = await freePort();
    const error = (await httpRequest({ method: 'POST', url: `http://127.0.0.1:${port}/x`, body: '{}' }).catch(
      (e: unknown) => e,
    )) as UpstreamError;
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.message).toMatch(/could not connect \(ECONNREFUSED\)/);
    expect(error.retryable).toBe(true);
  });

  it('does not retry a write that timed out after it was sent, but retries a read', async () => {
    const timeouts = { headersMs: 200 };
    const post = (await httpRequest({
      method: 'POST',
      url: `${server.url}/hang`,
      body: '{}',
      timeouts,
    }).catch((e: unknown) => e)) as UpstreamError;
    expect(post.retryable).toBe(false);
    expect(post.message).toMatch(/failed after the request was sent.*may have taken effect/);
    const get = (await httpRequest({ method: 'GET', url: `${server.url}/hang`, timeouts }).catch(
      (e: unknown) => e,
    )) as UpstreamError;
    expect(get.retryable).toBe(true);
  });

  it('classifies 429 as a rate limit with Retry-After, and 503 as retryable even for a write', async () => {
    const limited = await httpRequest({ method: 'POST', url: `${server.url}/limited` });
    const error = errorForResponse(limited, { method: 'POST', service: 'Test API', idempotent: false });
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(7000);
    const unavailable = await httpRequest({ method: 'POST', url: `${server.url}/unavailable` });
    expect(
      errorForResponse(unavailable, { method: 'POST', service: 'Test API', idempotent: false }).retryable,
    ).toBe(true);
  });

  it('registers secret header values for redaction', async () => {
    const { SecretSet } = await import('../../src/redaction.ts');
    const secrets = new SecretSet();
    await httpRequest({
      method: 'GET',
      url: `${server.url}/ok`,
      headers: { Authorization: 'Bearer abc-secret-999' },
      secrets,
    });
    expect(secrets.redact('token abc-secret-999')).toBe('token [REDACTED]');
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');
  it.each([
    [{ 'retry-after': '3' }, 3000],
    [{ 'retry-after': '1.5' }, 1500],
    [{ 'retry-after': 'Sun, 22 Nov 2026 10:00:30 GMT' }, 30_000],
    [{ 'retry-after': 'Sun, 22 Nov 2026 09:00:00 GMT' }, 0],
    [{ 'retry-after-ms': '250', 'retry-after': '9' }, 250],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('%o → %s ms', (headers, expected) => {
    expect(parseRetryAfter(headers, now)).toBe(expected);
  });
});
