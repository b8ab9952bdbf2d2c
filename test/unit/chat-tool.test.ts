import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { CredentialError, PermissionError, RateLimitError } from '../../src/errors.ts';
import { ChatTool } from '../../src/tools/slack/chat.ts';
import type { ServerResponse } from 'node:http';
import { runWithRefreshOnRejection } from '../../src/tools/refresh-on-rejection.ts';
import {
  json,
  startRecordingServer,
  type RecordedRequest,
  type RecordingServer,
} from '../support/http-server.ts';
import { toolContext } from '../support/tool-context.ts';

/** Slack's Web API as documented: ok:false errors with HTTP 200, cursor pages, 429 with Retry-After. */
let slack: RecordingServer;
let rateLimitNext = false;
const posted: Array<Record<string, unknown>> = [];
/** Access tokens Slack considers expired (token rotation: 12 hours after issue). */
const expired = new Set<string>();
/** Token rotation: each refresh token works once and yields the next pair. */
const rotations = new Map<string, { type: 'bot' | 'user'; access: string; refresh: string }>();
beforeEach(async () => {
  posted.length = 0;
  expired.clear();
  rotations.clear();
  slack = await startRecordingServer((request, response) => {
    if (request.path === '/api/oauth.v2.access') return rotate(request, response);
    const token = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!token) return json(response, 200, { ok: false, error: 'not_authed' });
    if (expired.has(token)) return json(response, 200, { ok: false, error: 'token_expired' });
    if (rateLimitNext) {
      rateLimitNext = false;
      return json(response, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': '3' });
    }
    switch (request.path) {
      case '/api/search.messages':
        // User tokens search: xoxp- and, with token rotation, xoxe.xoxp-. Bot tokens cannot.
        if (!/^(xoxe\.)?xoxp-/.test(token))
          return json(response, 200, { ok: false, error: 'not_allowed_token_type' });
        return json(response, 200, {
          ok: true,
          query: request.query.get('query'),
          messages: {
            total: 1,
            matches: [
              {
                iid: 'm1',
                ts: '1795300000.000100',
                text: 'deploy finished',
                username: 'ada',
                channel: { id: 'C0OPS', name: 'ops' },
                permalink: 'https://acme.slack.com/p1',
              },
            ],
            paging: { count: 10, total: 1, page: 1, pages: 1 },
          },
        });
      case '/api/conversations.list': {
        const second = request.query.get('cursor') === 'page2';
        return json(response, 200, {
          ok: true,
          channels: second
            ? [{ id: 'C0RANDOM', name: 'random' }]
            : [
                { id: 'C0GENERAL', name: 'general' },
                { id: 'C0OPS', name: 'ops' },
              ],
          response_metadata: { next_cursor: second ? '' : 'page2' },
        });
      }
      case '/api/chat.postMessage': {
        const body = JSON.parse(request.body) as { channel: string; text: string; thread_ts?: string };
        if (!/^C[0-9A-Z]+$/.test(body.channel))
          return json(response, 200, { ok: false, error: 'channel_not_found' });
        if (body.channel === 'C0GENERAL') return json(response, 200, { ok: false, error: 'not_in_channel' });
        posted.push(body);
        return json(response, 200, {
          ok: true,
          channel: body.channel,
          ts: '1795300001.000200',
          message: { text: body.text },
        });
      }
      default:
        return json(response, 200, { ok: false, error: 'unknown_method' });
    }
  });
});
afterEach(() => slack.close());

/** oauth.v2.access with grant_type=refresh_token, answering as Slack does for bot and user tokens. */
function rotate(request: RecordedRequest, response: ServerResponse): void {
  const form = new URLSearchParams(request.body);
  const basic = `Basic ${Buffer.from('111.222:slack-secret').toString('base64')}`;
  if (request.headers.authorization !== basic)
    return json(response, 200, { ok: false, error: 'invalid_client_id' });
  if (form.get('grant_type') !== 'refresh_token')
    return json(response, 200, { ok: false, error: 'invalid_grant_type' });
  const next = rotations.get(form.get('refresh_token') ?? '');
  if (!next) return json(response, 200, { ok: false, error: 'invalid_refresh_token' });
  rotations.delete(form.get('refresh_token')!);
  json(response, 200, {
    ok: true,
    app_id: 'A0APP',
    ...(next.type === 'bot'
      ? { scope: 'chat:write,channels:read', bot_user_id: 'U0BOT' }
      : { scope: 'search:read', user_id: 'U0ADA' }),
    token_type: next.type,
    access_token: next.access,
    refresh_token: next.refresh,
    expires_in: 43200,
    team: { id: 'T0TEAM', name: 'Acme' },
    enterprise: null,
    is_enterprise_install: false,
  });
}

async function store(record: { token: string; metadata?: Record<string, unknown> }) {
  const credentials = new InMemoryCredentialStore();
  await credentials.put({
    name: 'chat',
    type: 'oauth2',
    token: record.token,
    metadata: { base_url: slack.url, ...record.metadata },
  });
  return credentials;
}

describe('chat (Slack)', () => {
  it('searches with the user token and names the match', async () => {
    const tool = new ChatTool();
    const { text } = await tool.run(
      toolContext(await store({ token: 'xoxb-bot-1', metadata: { user_token: 'xoxp-user-1' } })),
      { action: 'search', query: 'deploy' },
    );
    expect(text).toBe('#ops ada (ts 1795300000.000100): deploy finished');
    expect(slack.requests[0]!.headers.authorization).toBe('Bearer xoxp-user-1');
  });

  it('searches with a rotated xoxe.xoxp- user token stored as the record token (user-only install)', async () => {
    const { text } = await new ChatTool().run(toolContext(await store({ token: 'xoxe.xoxp-1-user-1' })), {
      action: 'search',
      query: 'deploy',
    });
    expect(text).toBe('#ops ada (ts 1795300000.000100): deploy finished');
    expect(slack.requests[0]!.headers.authorization).toBe('Bearer xoxe.xoxp-1-user-1');
  });

  it("tries a bot token and explains Slack's not_allowed_token_type, naming the scope search needs", async () => {
    for (const token of ['xoxb-bot-1', 'xoxe.xoxb-1-bot-1']) {
      const error = await new ChatTool()
        .run(toolContext(await store({ token })), { action: 'search', query: 'deploy' })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PermissionError);
      expect((error as Error).message).toMatch(/not_allowed_token_type.*user token.*search:read/s);
      expect(slack.requests.at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
    }
  });

  it('posts to #name, resolved through every page of conversations.list and cached, in a thread', async () => {
    const tool = new ChatTool();
    const credentials = await store({ token: 'xoxb-bot-1' });
    await tool.run(toolContext(credentials), {
      action: 'post',
      channel: '#random',
      text: 'hello',
      thread_ts: '1795300000.000100',
    });
    await tool.run(toolContext(credentials), { action: 'post', channel: '#random', text: 'again' });
    expect(posted).toEqual([
      { channel: 'C0RANDOM', text: 'hello', thread_ts: '1795300000.000100' },
      { channel: 'C0RANDOM', text: 'again' },
    ]);
    expect(slack.requests.filter((r) => r.path === '/api/conversations.list')).toHaveLength(2); // two pages, once
  });

  it('maps ok:false errors to clear messages, and 429 to a rate limit with Retry-After', async () => {
    const tool = new ChatTool();
    const credentials = await store({ token: 'xoxb-bot-1' });
    await expect(
      tool.run(toolContext(credentials), { action: 'post', channel: 'C0GENERAL', text: 'x' }),
    ).rejects.toThrow(/invite it/);
    await expect(
      tool.run(toolContext(credentials), { action: 'post', channel: '#nope', text: 'x' }),
    ).rejects.toThrow(/No channel #nope/);
    rateLimitNext = true;
    const limited = (await tool
      .run(toolContext(credentials), { action: 'post', channel: 'C0OPS', text: 'x' })
      .catch((e: unknown) => e)) as RateLimitError;
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited.retryAfterMs).toBe(3000);
  });
});

describe('chat (Slack) token rotation', () => {
  async function rotatingStore(expiresAt: string) {
    const credentials = new InMemoryCredentialStore();
    await credentials.put({
      name: 'chat',
      type: 'oauth2',
      token: 'xoxe.xoxb-1-bot-1',
      refresh_token: 'xoxe-1-bot-r1',
      metadata: {
        base_url: slack.url,
        token_endpoint: `${slack.url}/api/oauth.v2.access`,
        client_id: '111.222',
        client_secret: 'slack-secret',
        expires_at: expiresAt,
        user_token: 'xoxe.xoxp-1-user-1',
        user_refresh_token: 'xoxe-1-user-r1',
      },
    });
    rotations.set('xoxe-1-bot-r1', { type: 'bot', access: 'xoxe.xoxb-1-bot-2', refresh: 'xoxe-1-bot-r2' });
    rotations.set('xoxe-1-user-r1', {
      type: 'user',
      access: 'xoxe.xoxp-1-user-2',
      refresh: 'xoxe-1-user-r2',
    });
    return credentials;
  }

  it('rotates the bot and the user token with oauth.v2.access before they expire, storing the new pairs', async () => {
    const credentials = await rotatingStore(new Date(Date.now() + 10_000).toISOString());
    expired.add('xoxe.xoxp-1-user-1');
    const { text } = await new ChatTool().run(toolContext(credentials), {
      action: 'search',
      query: 'deploy',
    });
    expect(text).toContain('deploy finished');
    const refreshes = slack.requests.filter((r) => r.path === '/api/oauth.v2.access');
    expect(refreshes.map((r) => Object.fromEntries(new URLSearchParams(r.body)))).toEqual([
      { grant_type: 'refresh_token', refresh_token: 'xoxe-1-bot-r1' },
      { grant_type: 'refresh_token', refresh_token: 'xoxe-1-user-r1' },
    ]);
    expect(slack.requests.at(-1)!.headers.authorization).toBe('Bearer xoxe.xoxp-1-user-2');
    const record = (await credentials.get('chat'))!;
    expect(record).toMatchObject({
      token: 'xoxe.xoxb-1-bot-2',
      refresh_token: 'xoxe-1-bot-r2',
      metadata: { user_token: 'xoxe.xoxp-1-user-2', user_refresh_token: 'xoxe-1-user-r2' },
    });
    expect(Date.parse(String(record.metadata?.expires_at))).toBeGreaterThan(Date.now() + 43_000_000);
  });

  it('refreshes once and repeats the call when Slack answers token_expired to a token that looked valid', async () => {
    const credentials = await rotatingStore(new Date(Date.now() + 3_600_000).toISOString());
    expired.add('xoxe.xoxb-1-bot-1');
    const context = toolContext(credentials);
    const output = await runWithRefreshOnRejection(new ChatTool(), context, {
      action: 'post',
      channel: 'C0OPS',
      text: 'rotated',
    });
    expect(output.text).toMatch(/^Posted to C0OPS/);
    expect(posted).toEqual([{ channel: 'C0OPS', text: 'rotated' }]);
    const posts = slack.requests.filter((r) => r.path === '/api/chat.postMessage');
    expect(posts.map((r) => r.headers.authorization)).toEqual([
      'Bearer xoxe.xoxb-1-bot-1',
      'Bearer xoxe.xoxb-1-bot-2',
    ]);
    expect(context.secrets.redact('xoxe.xoxb-1-bot-2 xoxe-1-bot-r2')).not.toMatch(/xoxe/);
  });

  it('says to authorize again when Slack no longer accepts the refresh token', async () => {
    const credentials = await rotatingStore(new Date(Date.now() - 1000).toISOString());
    rotations.clear();
    const error = await new ChatTool()
      .run(toolContext(credentials), { action: 'post', channel: 'C0OPS', text: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialError);
    expect((error as Error).message).toMatch(/invalid_refresh_token.*Authorize again/);
  });
});
