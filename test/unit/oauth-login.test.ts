import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { DriveSuiteOAuthHelper } from '../../src/oauth/drive-suite.ts';
import { loopbackLogin } from '../../src/oauth/loopback-login.ts';
import { FileOAuthStateStore } from '../../src/oauth/state-store.ts';
import { startAuthorizationServer } from '../support/oidc-server.ts';
import { freePort } from '../../src/embedded/free-port.ts';

describe('FileOAuthStateStore', () => {
  it('shares states between instances (processes), each usable once, in a 0600 file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'states-'));
    try {
      const path = join(dir, 'states.json');
      const entry = {
        verifier: 'v',
        redirect_uri: 'http://127.0.0.1:1/cb',
        helper: 'drive_suite',
        expires_at: Date.now() + 60_000,
      };
      await new FileOAuthStateStore({ path }).put('s1', entry);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      const other = new FileOAuthStateStore({ path });
      expect(await other.take('s1')).toEqual(entry);
      expect(await other.take('s1')).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('loopbackLogin', () => {
  it('receives the callback on 127.0.0.1, stores the tokens, answers the browser and stops listening', async () => {
    const port = await freePort();
    const config = {
      client_id: 'cli',
      client_secret: 'cli-secret-0123456789',
      redirect_uri: `http://127.0.0.1:${port}/callback`,
      scopes: ['gmail.readonly', 'offline_access'],
    };
    const as = await startAuthorizationServer({ ...config, scopes: ['gmail.readonly'] });
    const dir = await mkdtemp(join(tmpdir(), 'login-'));
    try {
      const store = new InMemoryCredentialStore();
      const helper = new DriveSuiteOAuthHelper({
        config,
        services: ['mail'],
        credentialStore: store,
        stateStore: new FileOAuthStateStore({ path: join(dir, 'states.json') }),
        endpoints: as.endpoints,
      });
      let browserSaw: Promise<string> | undefined;
      await loopbackLogin(helper, {
        open: async (url) => {
          const callback = await as.authorize(url); // the person logs in and consents
          browserSaw = fetch(callback).then((response) => response.text());
        },
      });
      expect(await store.list()).toEqual(['mail']);
      expect(await browserSaw).toMatch(/Authorized/);
      await expect(fetch(`http://127.0.0.1:${port}/callback`)).rejects.toThrow();
    } finally {
      await as.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a redirect URI that is not a loopback address with a port', async () => {
    const helper = new DriveSuiteOAuthHelper({
      config: {
        client_id: 'x',
        client_secret: 'y',
        redirect_uri: 'https://app.example/callback',
        scopes: [],
      },
      credentialStore: new InMemoryCredentialStore(),
      stateStore: new FileOAuthStateStore({ path: join(tmpdir(), 'unused-states.json') }),
    });
    await expect(loopbackLogin(helper)).rejects.toThrow(
      /needs a redirect URI like http:\/\/127\.0\.0\.1:8976/,
    );
  });
});
