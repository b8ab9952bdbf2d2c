/**
 * Authorization in the middle of a run: an agent reads a user's mail, the user never connected
 * Google, so the run asks for the grant (`authorization_required` with the URL), waits durably, and
 * runs the same call again as soon as the web app's OAuth callback stored the tokens.
 *
 *   npm run build && node examples/authorize-mid-run.ts
 *
 * With GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET set (a "Web application" client whose redirect URI
 * is http://127.0.0.1:8977/oauth/callback; APP_PORT picks another port), it prints Google's URL: open it, grant read access to
 * Gmail, and the run counts your unread mail. Without them (what CI runs) a small stand-in plays
 * Google: its authorization page says yes at once, and the example "clicks" the URL itself.
 * Everything else is real: the embedded Temporal server, the workflow, the durable wait, the
 * helper's PKCE and state, the callback route.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { z } from 'zod';
import {
  Agent,
  BaseConnectorTool,
  DriveSuiteOAuthHelper,
  InMemoryOAuthStateStore,
  type OAuthEndpoints,
  type ToolContext,
  type ToolOutput,
} from 'toolkit-agent';
import { InMemoryCredentialStore, ScriptedModel } from 'toolkit-agent/testing';

const google = Boolean(process.env.GOOGLE_CLIENT_ID && process.env.GOOGLE_CLIENT_SECRET);

/** Counts unread mail in the inbox of the run's tenant (the `mail` credential). */
class UnreadMailTool extends BaseConnectorTool {
  readonly name = 'unread_mail';
  readonly description = 'Counts unread mail in the inbox';
  readonly parameters = z.object({});
  protected override readonly defaultCredentialKey = 'mail';
  readonly api: string;
  constructor(api: string) {
    super();
    this.api = api;
  }
  async run(context: ToolContext): Promise<ToolOutput> {
    // No record for this tenant: getCredential throws, and the run asks the user (authorization_required).
    const { token } = await this.getCredential(context);
    const response = await fetch(`${this.api}/gmail/v1/users/me/labels/INBOX`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (!response.ok) throw new Error(`Gmail answered ${response.status}`);
    const label = (await response.json()) as { messagesUnread?: number };
    return { text: `${label.messagesUnread ?? 0} unread`, metadata: {} };
  }
}

/** Plays Google without a Google account (CI): authorize says yes at once; the token and Gmail answer. */
async function standInGoogle(): Promise<{ url: string; endpoints: OAuthEndpoints; close(): void }> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/auth') {
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', 'stand-in-code');
      back.searchParams.set('state', url.searchParams.get('state')!);
      response.writeHead(302, { location: back.toString() }).end();
    } else if (url.pathname === '/token') {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          access_token: 'stand-in-access-token',
          token_type: 'Bearer',
          expires_in: 3600,
          scope: 'https://www.googleapis.com/auth/gmail.readonly',
        }),
      );
    } else {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ messagesUnread: 3 }));
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const endpoints = { authorization_endpoint: `${url}/auth`, token_endpoint: `${url}/token`, issuer: url };
  return { url, endpoints, close: () => server.close() };
}

const stand = google ? undefined : await standInGoogle();

// The web app's OAuth callback route: exchangeCode stores the tokens for the tenant the run asked
// for, and (given the agent as `client`) wakes every run of that tenant waiting on `mail`.
const app = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  if (url.pathname !== '/oauth/callback') return void response.writeHead(404).end();
  callbackHelper
    .exchangeCode(url.searchParams.get('code') ?? '', url.searchParams.get('state') ?? '', url.searchParams)
    .then(
      () => response.writeHead(200).end('Connected. You can close this tab: the agent goes on.'),
      (error: Error) => response.writeHead(400).end(error.message),
    );
});
// Google needs the registered port; the stand-in takes any free one.
app.listen(google ? Number(process.env.APP_PORT ?? 8977) : 0, '127.0.0.1');
await once(app, 'listening');
const appPort = (app.address() as { port: number }).port;

const credentialStore = new InMemoryCredentialStore();
// The web app and the worker share the state store (here one process; a FileOAuthStateStore or
// PostgresOAuthStateStore across processes) and the credential store.
const stateStore = new InMemoryOAuthStateStore();
const helperOptions = {
  config: {
    client_id: process.env.GOOGLE_CLIENT_ID ?? 'stand-in-client',
    client_secret: process.env.GOOGLE_CLIENT_SECRET ?? 'stand-in-secret',
    redirect_uri: `http://127.0.0.1:${appPort}/oauth/callback`,
    scopes: ['https://www.googleapis.com/auth/gmail.readonly'],
  },
  services: ['mail' as const],
  credentialStore,
  stateStore,
  ...(stand ? { endpoints: stand.endpoints } : {}),
};

const agent = new Agent({
  llm: new ScriptedModel([
    { toolCalls: [{ name: 'unread_mail', args: {} }] },
    (request) => ({ text: `You have ${String(request.messages.at(-1)?.content)} messages.` }),
  ]),
  tools: [new UnreadMailTool(stand?.url ?? 'https://gmail.googleapis.com')],
  credentialStore,
  // Ask the user for `mail` when a call needs it; wait up to an hour, then tell the model "not authorized".
  authorization: { helpers: { mail: new DriveSuiteOAuthHelper(helperOptions) }, timeoutMs: 3_600_000 },
});

// (The route above uses it: requests arrive only once the run asks.)
const callbackHelper = new DriveSuiteOAuthHelper({ ...helperOptions, client: agent });

try {
  const run = await agent.startRun('How many unread emails do I have?', { tenant: 'ada' });
  for await (const event of run.events()) {
    if (event.type !== 'authorization_required') continue;
    const url = String(event.payload.url);
    console.log(`The run waits for authorization of ${String(event.payload.credential_key)}: open\n  ${url}`);
    // The user's browser: with the stand-in, follow the URL ourselves (it redirects to the callback).
    if (stand) await fetch(url);
    break;
  }
  const result = await run.result();
  console.log(result.output);
  if (!/unread/.test(String(result.output))) throw new Error(`Unexpected answer: ${String(result.output)}`);
} finally {
  app.close();
  stand?.close();
  await agent.close();
}
