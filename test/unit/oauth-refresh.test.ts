import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials/file-store.ts';
import { CredentialError } from '../../src/errors.ts';
import { refreshCredential } from '../../src/oauth/refresh.ts';
import { startNodeProcess } from '../integration/processes.ts';
import {
  authorizeMail,
  startAuthorizationServer,
  type LocalAuthorizationServer,
} from '../support/oidc-server.ts';

const config = {
  client_id: 'refresh-app',
  client_secret: 'refresh-app-secret-0123456789',
  redirect_uri: 'http://127.0.0.1:8977/oauth/callback',
  scopes: ['gmail.readonly', 'offline_access'],
};

describe('token refresh', () => {
  let as: LocalAuthorizationServer;
  let dir: string;
  beforeAll(async () => {
    as = await startAuthorizationServer({ ...config, scopes: ['gmail.readonly'] });
    dir = await mkdtemp(join(tmpdir(), 'refresh-'));
  });
  afterAll(async () => {
    await as?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function authorizedStore(name: string): Promise<FileCredentialStore> {
    const store = new FileCredentialStore({ path: join(dir, `${name}.json`) });
    await authorizeMail(as, config, store);
    return store;
  }

  async function expire(store: FileCredentialStore): Promise<void> {
    const record = (await store.get('mail'))!;
    await store.put({
      ...record,
      metadata: { ...record.metadata, expires_at: new Date(Date.now() - 1000).toISOString() },
    });
  }

  it('refreshes once for 50 concurrent calls in two processes, and stores the rotated refresh token first', async () => {
    const store = await authorizedStore('shared');
    await expire(store);
    const before = (await store.get('mail'))!;
    const refreshesBefore = as.grants.filter((g) => g === 'refresh_token').length;

    const env = { STORE_PATH: store.path, CALLS: '25' };
    const callers = [
      startNodeProcess('test/fixtures/refresh-caller.ts', env),
      startNodeProcess('test/fixtures/refresh-caller.ts', env),
    ];
    const outputs = await Promise.all(callers.map((caller) => caller.waitForLine(/^\[/)));
    const tokens = outputs.flatMap((line) => JSON.parse(line) as string[]);

    const after = (await store.get('mail'))!;
    expect(as.grants.filter((g) => g === 'refresh_token').length - refreshesBefore).toBe(1);
    expect(tokens).toHaveLength(50);
    expect(new Set(tokens)).toEqual(new Set([after.token]));
    expect(after.token).not.toBe(before.token);
    expect(after.refresh_token).toBeTruthy();
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(Date.parse(String(after.metadata?.expires_at))).toBeGreaterThan(Date.now());
  }, 60_000);

  it('turns invalid_grant into a permanent CredentialError that says to authorize again', async () => {
    const store = await authorizedStore('revoked');
    const record = (await store.get('mail'))!;
    await store.put({
      ...record,
      refresh_token: 'not-a-real-refresh-token',
      metadata: { ...record.metadata, expires_at: new Date(Date.now() - 1000).toISOString() },
    });
    const error = await refreshCredential(store, 'mail', undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialError);
    expect((error as CredentialError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/invalid_grant.*Authorize again/);
    expect((error as Error).message).not.toContain('not-a-real-refresh-token');
  });
});
