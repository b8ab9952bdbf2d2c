import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { CredentialError } from '../../src/errors.ts';
import { DriveSuiteOAuthHelper } from '../../src/oauth/drive-suite.ts';
import { InMemoryOAuthStateStore } from '../../src/oauth/state-store.ts';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../support/oidc-server.ts';

const config = {
  client_id: 'toolkit-app',
  client_secret: 'toolkit-app-secret-0123456789',
  redirect_uri: 'http://127.0.0.1:8976/oauth/callback',
  scopes: ['gmail.readonly', 'drive.readonly', 'offline_access'],
};

describe('DriveSuiteOAuthHelper against a real authorization server', () => {
  let as: LocalAuthorizationServer;
  beforeAll(async () => {
    as = await startAuthorizationServer({ ...config, scopes: ['gmail.readonly', 'drive.readonly'] });
  });
  afterAll(() => as?.close());

  function helper(
    store = new InMemoryCredentialStore(),
    stateStore = new InMemoryOAuthStateStore(),
    now?: () => number,
  ) {
    return new DriveSuiteOAuthHelper({
      config,
      credentialStore: store,
      stateStore,
      endpoints: as.endpoints,
      ...(now ? { now } : {}),
    });
  }

  it('builds a URL with PKCE, state and offline access, and stores the tokens under the three keys', async () => {
    const store = new InMemoryCredentialStore();
    const flow = helper(store);
    const url = new URL(await flow.buildAuthorizationUrl());
    expect(url.origin + url.pathname).toBe(as.endpoints.authorization_endpoint);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(url.searchParams.get('access_type')).toBe('offline');
    expect(url.searchParams.get('scope')).toBe('gmail.readonly drive.readonly offline_access');

    const callback = await as.authorize(url.toString());
    await flow.exchangeCode(
      callback.searchParams.get('code')!,
      callback.searchParams.get('state')!,
      callback.searchParams,
    );
    expect(await store.list()).toEqual(['calendar', 'file_drive', 'mail']);
    const mail = (await store.get('mail'))!;
    expect(mail).toMatchObject({
      type: 'oauth2',
      metadata: { client_id: config.client_id, token_endpoint: as.endpoints.token_endpoint },
    });
    expect(mail.token.length).toBeGreaterThan(20);
    expect(mail.refresh_token?.length).toBeGreaterThan(20);
    expect(Date.parse(String(mail.metadata?.expires_at))).toBeGreaterThan(Date.now());
    expect(mail.metadata?.scopes).toEqual(expect.arrayContaining(['gmail.readonly', 'drive.readonly']));
  });

  it('is refused by the server when the PKCE verifier is wrong, and stores nothing', async () => {
    const store = new InMemoryCredentialStore();
    const states = new InMemoryOAuthStateStore();
    const flow = helper(store, states);
    const url = await flow.buildAuthorizationUrl();
    const state = new URL(url).searchParams.get('state')!;
    const entry = (await states.take(state))!;
    await states.put(state, { ...entry, verifier: 'x'.repeat(64) });
    const callback = await as.authorize(url);
    await expect(
      flow.exchangeCode(callback.searchParams.get('code')!, state, callback.searchParams),
    ).rejects.toThrow(/refused the authorization code: invalid_grant/);
    expect(await store.list()).toEqual([]);
  });

  it('refuses a replayed, unknown, expired or mismatched state before any token request', async () => {
    const store = new InMemoryCredentialStore();
    let now = Date.now();
    const states = new InMemoryOAuthStateStore();
    const flow = helper(store, states, () => now);
    const url = await flow.buildAuthorizationUrl();
    const callback = await as.authorize(url);
    const [code, state] = [callback.searchParams.get('code')!, callback.searchParams.get('state')!];
    await flow.exchangeCode(code, state, callback.searchParams);
    await expect(flow.exchangeCode(code, state)).rejects.toThrow(/unknown or was already used/);
    await expect(flow.exchangeCode(code, 'made-up-state')).rejects.toThrow(/unknown or was already used/);

    const expiring = await flow.buildAuthorizationUrl();
    now += 11 * 60_000;
    await expect(flow.exchangeCode('code', new URL(expiring).searchParams.get('state')!)).rejects.toThrow(
      /expired/,
    );

    const other = new DriveSuiteOAuthHelper({
      config: { ...config, redirect_uri: 'http://127.0.0.1:9999/elsewhere' },
      credentialStore: store,
      stateStore: states,
      endpoints: as.endpoints,
    });
    const mismatched = new URL(await flow.buildAuthorizationUrl()).searchParams.get('state')!;
    const error = await other.exchangeCode('code', mismatched).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialError);
    expect((error as Error).message).toMatch(/another redirect URI.*Nothing was stored/);
  });
});
