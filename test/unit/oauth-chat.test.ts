import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { secretValuesOf } from '../../src/credentials/types.ts';
import { ChatOAuthHelper } from '../../src/oauth/chat.ts';
import { InMemoryOAuthStateStore } from '../../src/oauth/state-store.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';

const config = {
  client_id: '111.222',
  client_secret: 'slack-secret-abcdef',
  redirect_uri: 'https://app.example/slack/callback',
  scopes: [],
};

describe('ChatOAuthHelper against a Slack-shaped oauth.v2.access', () => {
  let slack: RecordingServer;
  beforeAll(async () => {
    slack = await startRecordingServer((request, response) => {
      const code = new URLSearchParams(request.body).get('code');
      if (code === 'bad-code') return json(response, 200, { ok: false, error: 'invalid_code' });
      json(response, 200, {
        ok: true,
        access_token: 'xoxb-bot-token-1234',
        token_type: 'bot',
        scope: 'chat:write,channels:read,groups:read',
        bot_user_id: 'U0BOT',
        app_id: 'A0APP',
        team: { id: 'T0TEAM', name: 'Acme' },
        enterprise: null,
        authed_user: {
          id: 'U0ADA',
          scope: 'search:read',
          access_token: 'xoxp-user-token-5678',
          token_type: 'user',
        },
        refresh_token: 'xoxe-1-refresh',
        expires_in: 43200,
      });
    });
  });
  afterAll(() => slack?.close());

  function helper(store: InMemoryCredentialStore) {
    return new ChatOAuthHelper({
      config,
      credentialStore: store,
      stateStore: new InMemoryOAuthStateStore(),
      endpoints: {
        authorization_endpoint: 'https://slack.com/oauth/v2/authorize',
        token_endpoint: `${slack.url}/api/oauth.v2.access`,
      },
    });
  }

  it('asks for bot and user scopes, and stores the bot token with the user token for search', async () => {
    const store = new InMemoryCredentialStore();
    const flow = helper(store);
    const url = new URL(await flow.buildAuthorizationUrl());
    expect(url.searchParams.get('scope')).toBe('chat:write,channels:read,groups:read');
    expect(url.searchParams.get('user_scope')).toBe('search:read');
    await flow.exchangeCode('good-code', url.searchParams.get('state')!);

    const request = slack.requests.at(-1)!;
    expect(request.headers.authorization).toBe(
      `Basic ${Buffer.from('111.222:slack-secret-abcdef').toString('base64')}`,
    );
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      code: 'good-code',
      redirect_uri: config.redirect_uri,
    });
    const record = (await store.get('chat'))!;
    expect(record).toMatchObject({
      type: 'oauth2',
      token: 'xoxb-bot-token-1234',
      refresh_token: 'xoxe-1-refresh',
      metadata: {
        bot_user_id: 'U0BOT',
        team_id: 'T0TEAM',
        user_token: 'xoxp-user-token-5678',
        user_scopes: ['search:read'],
      },
    });
    expect(Date.parse(String(record.metadata?.expires_at))).toBeGreaterThan(Date.now() + 43_000_000);
    expect(secretValuesOf(record)).toEqual(
      expect.arrayContaining(['xoxb-bot-token-1234', 'xoxp-user-token-5678', 'xoxe-1-refresh']),
    );
  });

  it('reports Slack ok:false errors and stores nothing', async () => {
    const store = new InMemoryCredentialStore();
    const flow = helper(store);
    const state = new URL(await flow.buildAuthorizationUrl()).searchParams.get('state')!;
    await expect(flow.exchangeCode('bad-code', state)).rejects.toThrow(/refused the code: invalid_code/);
    expect(await store.list()).toEqual([]);
  });
});
