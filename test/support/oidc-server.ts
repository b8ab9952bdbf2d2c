import type { Server } from 'node:http';
import { once } from 'node:events';
import Provider from 'oidc-provider';
import type { CredentialStore } from '../../src/credentials/types.ts';
import type { OAuthClientConfig } from '../../src/oauth/config.ts';
import { DriveSuiteOAuthHelper } from '../../src/oauth/drive-suite.ts';
import { InMemoryOAuthStateStore } from '../../src/oauth/state-store.ts';

export interface LocalAuthorizationServer {
  issuer: string;
  endpoints: { authorization_endpoint: string; token_endpoint: string; issuer: string };
  /** Plays the user: follows the authorization URL, logs in as `ada`, consents; answers the callback URL. */
  authorize(url: string): Promise<URL>;
  /** The grant type of every token request the server granted, in order. */
  grants: string[];
  close(): Promise<void>;
}

/**
 * A real OAuth 2.0 / OpenID authorization server (`oidc-provider`) on 127.0.0.1, with PKCE required,
 * refresh tokens, and its development login and consent pages.
 */
export async function startAuthorizationServer(client: {
  client_id: string;
  client_secret: string;
  redirect_uri: string;
  scopes: string[];
}): Promise<LocalAuthorizationServer> {
  const placeholder = 'http://127.0.0.1';
  const grants: string[] = [];
  let server: Server | undefined;
  let issuer = placeholder;
  const make = (url: string) =>
    new Provider(url, {
      clients: [
        {
          client_id: client.client_id,
          client_secret: client.client_secret,
          redirect_uris: [client.redirect_uri],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
          scope: ['openid', 'offline_access', ...client.scopes].join(' '),
        },
      ],
      scopes: ['openid', 'offline_access', ...client.scopes],
      pkce: { required: () => true },
      features: { devInteractions: { enabled: true } },
      issueRefreshToken: () => true,
      rotateRefreshToken: true,
      ttl: {
        AccessToken: 3600,
        AuthorizationCode: 60,
        RefreshToken: 86400,
        Grant: 86400,
        Session: 86400,
        Interaction: 600,
      },
      async findAccount(_ctx: unknown, id: string) {
        return { accountId: id, claims: async () => ({ sub: id }) };
      },
    });
  // The issuer must name the port, which is known only once listening: listen first, then build.
  const probe = make(placeholder);
  server = probe.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, 'close');
  issuer = `http://127.0.0.1:${port}`;
  const provider = make(issuer);
  provider.on('grant.success', (ctx: { oidc: { params?: { grant_type?: unknown } } }) => {
    grants.push(String(ctx.oidc.params?.grant_type));
  });
  server = provider.listen(port, '127.0.0.1');
  await once(server, 'listening');

  async function authorize(url: string): Promise<URL> {
    const cookies = new Map<string, string>();
    const go = async (target: URL, init: RequestInit = {}) => {
      const headers = {
        ...(init.headers as Record<string, string>),
        cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      };
      const response = await fetch(target, { ...init, headers, redirect: 'manual' });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair = ''] = cookie.split(';');
        const index = pair.indexOf('=');
        cookies.set(pair.slice(0, index), pair.slice(index + 1));
      }
      return response;
    };
    let response = await go(new URL(url));
    for (let i = 0; i < 12; i++) {
      const location = response.headers.get('location');
      if (location?.startsWith(client.redirect_uri)) return new URL(location);
      if (!location)
        throw new Error(`The authorization server answered ${response.status}: ${await response.text()}`);
      response = await go(new URL(location, issuer));
      if (response.status === 200) {
        const html = await response.text();
        const action = /action="([^"]+)"/.exec(html)?.[1];
        if (!action) throw new Error(`No form on the interaction page: ${html.slice(0, 300)}`);
        const body = html.includes('name="login"') ? 'prompt=login&login=ada&password=ada' : 'prompt=consent';
        response = await go(new URL(action, issuer), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
      }
    }
    throw new Error('Too many redirects while authorizing.');
  }

  return {
    issuer,
    endpoints: { authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, issuer },
    authorize,
    grants,
    async close() {
      server?.closeAllConnections();
      server?.close();
    },
  };
}

/**
 * The whole `DriveSuiteOAuthHelper` flow for `mail` against a local authorization server: the
 * authorization URL, the user's login and consent, and the code exchange that stores the record.
 */
export async function authorizeMail(
  as: LocalAuthorizationServer,
  config: OAuthClientConfig,
  credentialStore: CredentialStore,
): Promise<void> {
  const helper = new DriveSuiteOAuthHelper({
    config,
    services: ['mail'],
    credentialStore,
    stateStore: new InMemoryOAuthStateStore(),
    endpoints: as.endpoints,
  });
  const callback = await as.authorize(await helper.buildAuthorizationUrl());
  await helper.exchangeCode(
    callback.searchParams.get('code')!,
    callback.searchParams.get('state')!,
    callback.searchParams,
  );
}
