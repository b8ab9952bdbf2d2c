import { once } from 'node:events';
import { createServer } from 'node:http';
import { ConfigurationError, CredentialError } from '../errors.ts';
import type { OAuthHelper } from './helper.ts';

export interface LoopbackLoginOptions {
  /** Shows the URL to the person (open a browser, print it). Default: print it. */
  open?: (url: string) => void | Promise<void>;
  /** How long to wait for the callback. Default 5 minutes. */
  timeoutMs?: number;
}

/**
 * A login for people at a terminal (RFC 8252): listens on the helper's loopback redirect URI
 * (`http://127.0.0.1:<port>/<path>`), shows the authorization URL, receives the code, exchanges it
 * (the tokens land in the credential store), answers the browser, and stops listening.
 */
export async function loopbackLogin(helper: OAuthHelper, options: LoopbackLoginOptions = {}): Promise<void> {
  const redirect = new URL(helper.redirectUri);
  if (
    redirect.protocol !== 'http:' ||
    !['127.0.0.1', 'localhost', '[::1]'].includes(redirect.hostname) ||
    !redirect.port
  ) {
    throw new ConfigurationError(
      `A loopback login needs a redirect URI like http://127.0.0.1:8976/callback (with a port); got ${helper.redirectUri}.`,
    );
  }
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', redirect);
    if (url.pathname !== redirect.pathname) {
      response.writeHead(404).end();
      return;
    }
    const params = url.searchParams;
    const fail = (message: string) => {
      response
        .writeHead(400, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`Authorization failed: ${message}\n`);
      settle.reject(new CredentialError(`Authorization failed: ${message}`));
    };
    if (params.get('error'))
      return fail(
        `${params.get('error')}${params.get('error_description') ? ` (${params.get('error_description')})` : ''}`,
      );
    const code = params.get('code');
    const state = params.get('state');
    if (!code || !state) return fail('the callback had no code or state.');
    helper.exchangeCode(code, state, params).then(
      () => {
        response
          .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
          .end('Authorized. You can close this window.\n');
        settle.resolve();
      },
      (error: unknown) => fail(error instanceof Error ? error.message : String(error)),
    );
  });
  server.listen(Number(redirect.port), redirect.hostname.replace(/^\[|\]$/g, ''));
  await once(server, 'listening');
  const timer = setTimeout(
    () =>
      settle.reject(
        new CredentialError(
          `No authorization arrived within ${Math.round((options.timeoutMs ?? 300_000) / 1000)} s.`,
        ),
      ),
    options.timeoutMs ?? 300_000,
  );
  try {
    const url = await helper.buildAuthorizationUrl();
    await (options.open ?? ((link: string) => console.log(`Open this URL to authorize:\n${link}`)))(url);
    await done;
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  }
}
