import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { PermissionError, RateLimitError } from '../../src/errors.ts';
import { ChatTool } from '../../src/tools/chat.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { toolContext } from '../support/tool-context.ts';

/** Slack's Web API as documented: ok:false errors with HTTP 200, cursor pages, 429 with Retry-After. */
let slack: RecordingServer;
let rateLimitNext = false;
const posted: Array<Record<string, unknown>> = [];
beforeEach(async () => {
  posted.length = 0;
  slack = await startRecordingServer((request, response) => {
    const token = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!token) return json(response, 200, { ok: false, error: 'not_authed' });
    if (rateLimitNext) {
      rateLimitNext = false;
      return json(response, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': '3' });
    }
    switch (request.path) {
      case '/api/search.messages':
        if (!token.startsWith('xoxp-'))
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

  it('says which token and scope search needs when only a bot token is stored', async () => {
    const error = await new ChatTool()
      .run(toolContext(await store({ token: 'xoxb-bot-1' })), { action: 'search', query: 'deploy' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionError);
    expect((error as Error).message).toMatch(/user token \(xoxp\) with the search:read scope/);
    expect(slack.requests).toHaveLength(0);
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
