import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/embedded/free-port.ts';
import { startAuthorizationServer } from '../support/oidc-server.ts';
import { runCli, startCli } from '../support/cli.ts';

describe('toolkit-agent auth google', () => {
  it('prints the URL, receives the login on the loopback address, stores the tokens, shows no secret', async () => {
    const port = await freePort();
    const client = {
      client_id: 'cli-app',
      client_secret: 'cli-client-secret-0123456789',
      redirect_uri: `http://127.0.0.1:${port}/callback`,
      scopes: ['gmail.readonly', 'offline_access'],
    };
    const as = await startAuthorizationServer({ ...client, scopes: ['gmail.readonly'] });
    const home = await mkdtemp(join(tmpdir(), 'cli-auth-'));
    try {
      const config = join(home, 'toolkit-agent.config.mjs');
      const google = { client_id: client.client_id, scopes: client.scopes, endpoints: as.endpoints };
      await writeFile(config, `export default { oauth: { google: ${JSON.stringify(google)} } };\n`);
      const env = { TOOLKIT_AGENT_HOME: home, GOOGLE_CLIENT_SECRET: client.client_secret };
      const login = startCli(
        ['-c', config, 'auth', 'google', '--services', 'mail', '--port', String(port), '--json'],
        {
          env,
        },
      );
      const { url } = JSON.parse(await login.waitForLine(/"url"/)) as { url: string };
      expect(new URL(url).searchParams.get('redirect_uri')).toBe(client.redirect_uri);
      expect(new URL(url).searchParams.get('code_challenge_method')).toBe('S256');
      // The person's browser: log in and consent, then follow the redirect to the CLI.
      const callback = await as.authorize(url);
      const page = await fetch(callback);
      expect(await page.text()).toMatch(/Authorized/);
      expect(await login.exited).toBe(0);
      expect(JSON.parse(login.lines.at(-1)!)).toEqual({ stored: ['mail'] });

      const list = await runCli(['creds', 'list', '--json'], { env });
      const records = JSON.parse(list.stdout) as Array<{
        name: string;
        type: string;
        status: string;
        expires_at: string;
      }>;
      expect(records).toEqual([
        { name: 'mail', type: 'oauth2', status: 'ok', expires_at: expect.any(String) as string },
      ]);
      const output = login.lines.join('\n') + login.stderr + list.stdout + list.stderr;
      expect(output).not.toContain(client.client_secret);
      expect(as.grants).toEqual(['authorization_code']);
    } finally {
      await as.close();
      await rm(home, { recursive: true, force: true });
    }
  }, 60_000);

  it('says where the OAuth client comes from when there is none', async () => {
    const home = await mkdtemp(join(tmpdir(), 'cli-auth-'));
    try {
      const result = await runCli(['auth', 'google'], {
        env: { TOOLKIT_AGENT_HOME: home, GOOGLE_CLIENT_ID: '', GOOGLE_CLIENT_SECRET: '' },
        cwd: home,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET, or oauth.google in the config/,
      );
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }, 30_000);
});
