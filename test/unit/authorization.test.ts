import { describe, expect, it } from 'vitest';
import { authorizationNeedOf } from '../../src/authorization/need.ts';
import { resolveAuthorization } from '../../src/authorization/options.ts';
import { requestAuthorization } from '../../src/authorization/request.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { CredentialError, PermissionError } from '../../src/errors.ts';
import { insufficientScopeOf } from '../../src/http/insufficient-scope.ts';
import { DriveSuiteOAuthHelper } from '../../src/oauth/drive-suite.ts';
import { InMemoryOAuthStateStore } from '../../src/oauth/state-store.ts';
import { storeCheckInterval } from '../../src/workflows/authorization-wait.ts';

const GMAIL = 'https://www.googleapis.com/auth/';

function helper(store = new InMemoryCredentialStore(), stateStore = new InMemoryOAuthStateStore()) {
  return new DriveSuiteOAuthHelper({
    config: { client_id: 'app', client_secret: 's', redirect_uri: 'http://127.0.0.1:1/cb', scopes: [] },
    services: ['mail'],
    credentialStore: store,
    stateStore,
    endpoints: {
      authorization_endpoint: 'https://as.example/auth',
      token_endpoint: 'https://as.example/token',
    },
  });
}

describe('mid-run authorization parts', () => {
  it('reads insufficient_scope challenges (RFC 6750), with and without scopes', () => {
    expect(
      insufficientScopeOf({ 'www-authenticate': 'Bearer error="insufficient_scope", scope="a b"' }),
    ).toEqual(['a', 'b']);
    expect(insufficientScopeOf({ 'www-authenticate': 'Bearer error="insufficient_scope"' })).toEqual([]);
    expect(insufficientScopeOf({ 'www-authenticate': 'Bearer error="invalid_token"' })).toBeUndefined();
    expect(insufficientScopeOf({})).toBeUndefined();
  });

  it('finds the need through causes, and only on errors that carry one', () => {
    const need = { credentialKey: 'mail', reason: 'missing' as const };
    expect(
      authorizationNeedOf(new Error('x', { cause: new CredentialError('y', { authorization: need }) })),
    ).toBe(need);
    expect(authorizationNeedOf(new PermissionError('no'))).toBeUndefined();
    expect(authorizationNeedOf('text')).toBeUndefined();
  });

  it('refuses bad settings with what to do, and fills in the defaults', () => {
    expect(() => resolveAuthorization('a', { helpers: { mail: {} as never } })).toThrow(
      /not an OAuth helper/,
    );
    expect(() => resolveAuthorization('a', { helpers: {}, timeoutMs: 0 })).toThrow(
      /timeoutMs must be a positive number/,
    );
    expect(() => resolveAuthorization('a', { helpers: {}, onTimeout: 'later' as never })).toThrow(
      /'continue' or 'stop'/,
    );
    expect(resolveAuthorization('a', { helpers: {} })).toMatchObject({
      timeoutMs: 86_400_000,
      onTimeout: 'continue',
    });
  });

  it('asks an under-scoped token for the granted scopes plus the missing one, with a state bound to the run', async () => {
    const store = new InMemoryCredentialStore();
    const states = new InMemoryOAuthStateStore();
    await store.put(
      { name: 'mail', type: 'oauth2', token: 't', metadata: { scopes: [`${GMAIL}gmail.readonly`] } },
      { tenant: 'ada' },
    );
    const settings = resolveAuthorization('a', {
      helpers: { mail: helper(store, states) },
      timeoutMs: 60_000,
    });
    const request = await requestAuthorization(
      settings,
      { credentialKey: 'mail', reason: 'insufficient_scope', scopes: [`${GMAIL}gmail.send`] },
      { tenant: 'ada', workflowId: 'wf-1', credentialStore: store, message: 'needs send', now: 0 },
    );
    expect(request).toMatchObject({
      credential_key: 'mail',
      tenant: 'ada',
      scopes: [`${GMAIL}gmail.readonly`, `${GMAIL}gmail.send`],
      missing_scopes: [`${GMAIL}gmail.send`],
      expires_at: new Date(60_000).toISOString(),
    });
    const url = new URL(request!.url);
    expect(url.searchParams.get('scope')).toBe(`${GMAIL}gmail.readonly ${GMAIL}gmail.send`);
    expect(url.searchParams.get('include_granted_scopes')).toBe('true');
    const entry = await states.take(url.searchParams.get('state')!);
    expect(entry).toMatchObject({ tenant: 'ada', credential_key: 'mail', workflow_id: 'wf-1' });
    expect(entry!.expires_at - Date.now()).toBeGreaterThan(50_000);
  });

  it('asks nothing for a key no helper serves', async () => {
    const settings = resolveAuthorization('a', { helpers: { mail: helper() } });
    const request = await requestAuthorization(
      settings,
      { credentialKey: 'chat', reason: 'missing' },
      { tenant: undefined, workflowId: 'w', credentialStore: undefined, message: '' },
    );
    expect(request).toBeUndefined();
  });
});

describe('a long authorization wait', () => {
  it('looks in the store every checkEveryMs for an hour, then every 15 minutes', () => {
    expect(storeCheckInterval(0, 60_000)).toBe(60_000);
    expect(storeCheckInterval(59 * 60_000, 60_000)).toBe(60_000);
    expect(storeCheckInterval(60 * 60_000, 60_000)).toBe(15 * 60_000);
    expect(storeCheckInterval(3 * 24 * 60 * 60_000, 60_000)).toBe(15 * 60_000);
    // A check interval set longer than 15 minutes stays as set.
    expect(storeCheckInterval(2 * 60 * 60_000, 30 * 60_000)).toBe(30 * 60_000);
    // A week's wait: 60 looks in the first hour, then 4 an hour: well under the history limits.
    let looks = 0;
    for (let waited = 0; waited < 7 * 24 * 60 * 60_000; waited += storeCheckInterval(waited, 60_000))
      looks += 1;
    expect(looks).toBeLessThan(800);
  });
});
