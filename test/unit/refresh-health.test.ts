import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { listCredentialStatus } from '../../src/credentials/status.ts';
import type { CredentialRecord } from '../../src/credentials/types.ts';
import { CredentialError, UpstreamError } from '../../src/errors.ts';
import { REFRESH_BACKOFF_MS, refreshCredential } from '../../src/oauth/refresh.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { toolContext } from '../support/tool-context.ts';

class InboxTool extends BaseConnectorTool {
  readonly name = 'inbox';
  readonly description = 'Reads the inbox';
  readonly parameters = z.object({});
  protected override readonly defaultCredentialKey = 'mail';
  async run(context: ToolContext, _args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: (await this.getCredential(context)).token, metadata: {} };
  }
}

describe('refresh health', () => {
  /** What the token endpoint answers next: 503, invalid_grant, or fresh tokens. */
  let answer: 'unavailable' | 'invalid_grant' | 'ok' = 'unavailable';
  let server: RecordingServer;
  beforeAll(async () => {
    server = await startRecordingServer((_request, response) => {
      if (answer === 'unavailable') json(response, 503, { error: 'temporarily_unavailable' });
      else if (answer === 'invalid_grant')
        json(response, 400, { error: 'invalid_grant', error_description: 'refresh token revoked' });
      else json(response, 200, { access_token: 'fresh-token', token_type: 'Bearer', expires_in: 3600 });
    });
  });
  afterAll(async () => server?.close());

  const start = Date.parse('2026-01-01T00:00:00Z');
  async function expiredStore(tenant?: string): Promise<InMemoryCredentialStore> {
    const store = new InMemoryCredentialStore();
    const record: CredentialRecord = {
      name: 'mail',
      type: 'oauth2',
      token: 'old-token',
      refresh_token: 'refresh-secret',
      metadata: {
        expires_at: new Date(start - 1000).toISOString(),
        token_endpoint: `${server.url}/token`,
        client_id: 'app',
        client_secret: 'app-secret',
      },
    };
    await store.put(record, { tenant });
    return store;
  }
  const tokenRequests = () => server.requests.filter((r) => r.path === '/token').length;

  it('asks a token endpoint that answers 503 at most once per 30 s per record', async () => {
    answer = 'unavailable';
    const store = await expiredStore();
    const other = await expiredStore('tenant-b');
    let clock = start;
    const now = () => clock;
    const before = tokenRequests();

    const first = await refreshCredential(store, 'mail', undefined, now).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(UpstreamError);
    expect((first as UpstreamError).retryable).toBe(true);
    expect(tokenRequests() - before).toBe(1);

    for (const after of [1_000, 10_000, REFRESH_BACKOFF_MS - 1]) {
      clock = start + after;
      const error = await refreshCredential(store, 'mail', undefined, now).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as UpstreamError).retryable).toBe(true);
      expect((error as UpstreamError).retryAfterMs).toBe(REFRESH_BACKOFF_MS - after);
      expect((error as Error).message).toMatch(
        /failed recently \(HTTP 503 from the token endpoint\).*tried again after/,
      );
    }
    expect(tokenRequests() - before).toBe(1);
    // Another record (here: the same name for another tenant) has its own back-off.
    await refreshCredential(other, 'mail', 'tenant-b', now).catch(() => undefined);
    expect(tokenRequests() - before).toBe(2);

    clock = start + REFRESH_BACKOFF_MS;
    answer = 'ok';
    const refreshed = await refreshCredential(store, 'mail', undefined, now);
    expect(tokenRequests() - before).toBe(3);
    expect(refreshed.token).toBe('fresh-token');
    expect(refreshed.metadata).not.toHaveProperty('refresh_retry_at');
    expect(refreshed.metadata).not.toHaveProperty('refresh_error');
  });

  it('marks the record needs_reauth after invalid_grant; connectors then fail without a request until a new exchange', async () => {
    answer = 'invalid_grant';
    const store = await expiredStore();
    const before = tokenRequests();
    const first = await refreshCredential(store, 'mail', undefined, () => start).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(CredentialError);
    expect((first as Error).message).toMatch(/invalid_grant.*Authorize again/);
    expect(tokenRequests() - before).toBe(1);
    expect((await store.get('mail'))!.metadata).toMatchObject({ status: 'needs_reauth' });

    // Later, with a token endpoint that would answer: still no request, the same advice.
    answer = 'ok';
    const later = () => start + 10 * REFRESH_BACKOFF_MS;
    const again = await refreshCredential(store, 'mail', undefined, later).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(CredentialError);
    expect((again as CredentialError).retryable).toBe(false);
    expect((again as Error).message).toMatch(/needs to be authorized again.*Authorize again/);
    const tool = await new InboxTool().run(toolContext(store), {}).catch((e: unknown) => e);
    expect(tool).toBeInstanceOf(CredentialError);
    expect((tool as Error).message).toMatch(/"mail" needs to be authorized again/);
    expect(tokenRequests() - before).toBe(1);

    // The status is visible without secrets.
    const statuses = await listCredentialStatus(store);
    expect(statuses).toEqual([
      expect.objectContaining({
        name: 'mail',
        type: 'oauth2',
        status: 'needs_reauth',
        refresh_error: 'invalid_grant',
      }),
    ]);
    expect(JSON.stringify(statuses)).not.toMatch(/old-token|refresh-secret|app-secret/);

    // A new code exchange writes a fresh record (no status): the connector works again.
    await store.put({
      name: 'mail',
      type: 'oauth2',
      token: 'reauthorized-token',
      metadata: { expires_at: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect((await new InboxTool().run(toolContext(store), {})).text).toBe('reauthorized-token');
  });
});

const SLACK_START = Date.parse('2026-01-01T00:00:00Z');

/** A store holding a Slack record (bot token xoxe.xoxb-1-old, refresh token xoxe-1-r1) that expired just before SLACK_START. */
async function expiredSlackStoreAt(
  slackUrl: string,
  metadata: Record<string, string>,
): Promise<InMemoryCredentialStore> {
  const store = new InMemoryCredentialStore();
  await store.put({
    name: 'chat',
    type: 'oauth2',
    token: 'xoxe.xoxb-1-old',
    refresh_token: 'xoxe-1-r1',
    metadata: {
      expires_at: new Date(SLACK_START - 1000).toISOString(),
      token_endpoint: `${slackUrl}/api/oauth.v2.access`,
      client_id: '111.222',
      ...metadata,
    },
  });
  return store;
}

describe('refresh health of a Slack record (token rotation at oauth.v2.access)', () => {
  /** What oauth.v2.access answers next, as Slack does: errors are mostly HTTP 200 with ok:false. */
  let answer: 'unavailable' | 'ratelimited' | 'invalid_refresh_token' | 'ok' = 'unavailable';
  let slack: RecordingServer;
  beforeAll(async () => {
    slack = await startRecordingServer((_request, response) => {
      if (answer === 'unavailable') response.writeHead(503).end('upstream connect error');
      else if (answer === 'ratelimited')
        json(response, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': '5' });
      else if (answer === 'invalid_refresh_token')
        json(response, 200, { ok: false, error: 'invalid_refresh_token' });
      else
        json(response, 200, {
          ok: true,
          token_type: 'bot',
          access_token: 'xoxe.xoxb-1-fresh',
          refresh_token: 'xoxe-1-r2',
          expires_in: 43_200,
        });
    });
  });
  afterAll(async () => slack?.close());

  const start = SLACK_START;
  const expiredSlackStore = () => expiredSlackStoreAt(slack.url, { client_secret: 'slack-secret' });
  const rotations = () => slack.requests.length;

  it('backs off 30 s after a 503 and after ok:false ratelimited, then rotates and clears the failure', async () => {
    const store = await expiredSlackStore();
    let clock = start;
    const now = () => clock;
    const refresh = () => refreshCredential(store, 'chat', undefined, now).catch((e: unknown) => e);
    const before = rotations();

    answer = 'unavailable';
    const first = await refresh();
    expect(first).toBeInstanceOf(UpstreamError);
    expect(first).toMatchObject({ retryable: true, retryAfterMs: REFRESH_BACKOFF_MS });
    expect(await listCredentialStatus(store, { now: clock })).toEqual([
      expect.objectContaining({
        status: 'refresh_failing',
        refresh_error: "HTTP 503 from Slack's oauth.v2.access",
      }),
    ]);
    clock = start + 10_000;
    expect(await refresh()).toMatchObject({ retryAfterMs: REFRESH_BACKOFF_MS - 10_000 });
    expect(rotations() - before).toBe(1);

    answer = 'ratelimited';
    clock = start + REFRESH_BACKOFF_MS;
    expect(await refresh()).toBeInstanceOf(UpstreamError);
    expect(rotations() - before).toBe(2);
    clock = start + REFRESH_BACKOFF_MS + 10_000;
    const later = await refresh();
    expect((later as Error).message).toMatch(/failed recently \(ratelimited\).*tried again after/);
    expect(rotations() - before).toBe(2);

    answer = 'ok';
    clock = start + 2 * REFRESH_BACKOFF_MS;
    const rotated = await refreshCredential(store, 'chat', undefined, now);
    expect(rotations() - before).toBe(3);
    expect(rotated).toMatchObject({ token: 'xoxe.xoxb-1-fresh', refresh_token: 'xoxe-1-r2' });
    expect(rotated.metadata).not.toHaveProperty('refresh_retry_at');
    expect(rotated.metadata).not.toHaveProperty('refresh_error');
    expect(await listCredentialStatus(store, { now: clock })).toEqual([
      expect.objectContaining({ status: 'ok' }),
    ]);
  });

  it('marks the record needs_reauth after invalid_refresh_token and asks Slack nothing more', async () => {
    answer = 'invalid_refresh_token';
    const store = await expiredSlackStore();
    const before = rotations();
    const first = await refreshCredential(store, 'chat', undefined, () => start).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(CredentialError);
    expect((first as CredentialError).retryable).toBe(false);
    expect((first as Error).message).toMatch(/invalid_refresh_token.*Authorize again/);

    answer = 'ok';
    const later = () => start + 10 * REFRESH_BACKOFF_MS;
    const again = await refreshCredential(store, 'chat', undefined, later).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(CredentialError);
    expect((again as Error).message).toMatch(
      /"chat" needs to be authorized again.*refused \(invalid_refresh_token\).*Authorize again/,
    );
    expect(rotations() - before).toBe(1);
    const statuses = await listCredentialStatus(store, { now: later() });
    expect(statuses).toEqual([
      expect.objectContaining({
        name: 'chat',
        status: 'needs_reauth',
        refresh_error: 'invalid_refresh_token',
      }),
    ]);
    expect(JSON.stringify(statuses)).not.toMatch(/xoxe|slack-secret/);
  });
});

describe('a Slack record whose main token rotates but whose user token does not', () => {
  let userAnswer: 'unavailable' | 'ok' = 'unavailable';
  let slack: RecordingServer;
  beforeAll(async () => {
    // Slack rotates each refresh token once: the bot pair for r1, the user pair for u1.
    slack = await startRecordingServer((request, response) => {
      const refreshToken = new URLSearchParams(request.body).get('refresh_token');
      const bot = {
        'xoxe-1-r1': ['xoxe.xoxb-1-fresh', 'xoxe-1-r2'],
        'xoxe-1-r2': ['xoxe.xoxb-1-fresher', 'xoxe-1-r3'],
      }[refreshToken ?? ''];
      if (bot)
        json(response, 200, {
          ok: true,
          token_type: 'bot',
          access_token: bot[0],
          refresh_token: bot[1],
          expires_in: 43_200,
        });
      else if (refreshToken === 'xoxe-1-u1' && userAnswer === 'ok')
        json(response, 200, {
          ok: true,
          token_type: 'user',
          access_token: 'xoxe.xoxp-1-fresh',
          refresh_token: 'xoxe-1-u2',
          expires_in: 43_200,
        });
      else if (refreshToken === 'xoxe-1-u1') response.writeHead(503).end('upstream connect error');
      else json(response, 200, { ok: false, error: 'invalid_refresh_token' });
    });
  });
  afterAll(async () => slack?.close());

  it('keeps the rotated main pair when the user rotation fails, and rotates the user token after the back-off', async () => {
    const start = SLACK_START;
    const store = await expiredSlackStoreAt(slack.url, {
      user_token: 'xoxe.xoxp-1-old',
      user_refresh_token: 'xoxe-1-u1',
    });
    const failed = await refreshCredential(store, 'chat', undefined, () => start).catch((e: unknown) => e);
    // The spent refresh token r1 is not what is stored: the new main pair is, with the back-off.
    const kept = await store.get('chat');
    expect(kept).toMatchObject({ token: 'xoxe.xoxb-1-fresh', refresh_token: 'xoxe-1-r2' });
    expect(kept?.metadata).toMatchObject({
      user_refresh_token: 'xoxe-1-u1',
      refresh_retry_at: new Date(start + REFRESH_BACKOFF_MS).toISOString(),
    });
    expect(failed).toBeInstanceOf(UpstreamError);
    expect((failed as Error).message).toMatch(
      /user token \(for search\) was not rotated; the main token was/,
    );

    userAnswer = 'ok';
    const later = start + REFRESH_BACKOFF_MS;
    // Search answered 401 for the stale user token: the record is refreshed again, both pairs rotate.
    const rotated = await refreshCredential(store, 'chat', undefined, () => later, {
      rejectedToken: 'xoxe.xoxb-1-fresh',
    });
    expect(rotated).toMatchObject({ token: 'xoxe.xoxb-1-fresher', refresh_token: 'xoxe-1-r3' });
    expect(rotated.metadata).toMatchObject({
      user_token: 'xoxe.xoxp-1-fresh',
      user_refresh_token: 'xoxe-1-u2',
    });
  });
});
