/**
 * Google connectors with the OAuth login: a person at a terminal signs in once (`loopbackLogin`: the
 * authorization URL, a callback on 127.0.0.1, PKCE, offline access), the tokens land in the
 * credential store under `mail`, `calendar` and `file_drive`, and an agent searches Gmail, Calendar
 * and Drive with them. Expired tokens are refreshed by the connectors; no token ever reaches the
 * workflow history or the model. `npx toolkit-agent auth google` is the same login from the CLI.
 *
 *   npm run build && node examples/google-connectors.ts
 *
 * With GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET set (a "Desktop app" OAuth client), it prints
 * Google's URL: open it, grant access, and the agent reads your own mail, calendar and files.
 * Without them (what CI runs) a stand-in plays Google on 127.0.0.1: its authorization page says yes
 * at once, the example "opens" the URL itself, and the stand-in answers the three APIs. The model:
 * Anthropic when ANTHROPIC_API_KEY is set, otherwise a ScriptedModel. Everything else is real: the
 * helper's PKCE and state, the code exchange, the store, the connectors' HTTP calls, Temporal.
 */
import { createServer, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  Agent,
  CalendarTool,
  DRIVE_SUITE_SCOPES,
  DriveSuiteOAuthHelper,
  FileDriveTool,
  InMemoryOAuthStateStore,
  loopbackLogin,
  MailTool,
  type LanguageModel,
} from 'toolkit-agent';
import { InMemoryCredentialStore, ScriptedModel } from 'toolkit-agent/testing';

const google = Boolean(process.env.GOOGLE_CLIENT_ID && process.env.GOOGLE_CLIENT_SECRET);

/** Plays Google's sign-in and its Gmail, Calendar and Drive APIs (CI, or a try without an account). */
async function standInGoogle() {
  const json = (response: ServerResponse, body: unknown) =>
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    if (path === '/auth') {
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', 'stand-in-code');
      back.searchParams.set('state', url.searchParams.get('state')!);
      return void response.writeHead(302, { location: back.toString() }).end();
    }
    if (path === '/token') {
      const scope = Object.values(DRIVE_SUITE_SCOPES).flat().join(' ');
      const tokens = { access_token: 'ya29.stand-in', refresh_token: '1//stand-in', expires_in: 3600, scope };
      return json(response, { ...tokens, token_type: 'Bearer' });
    }
    if (request.headers.authorization !== 'Bearer ya29.stand-in') return void response.writeHead(401).end();
    if (path === '/gmail/v1/users/me/messages')
      return json(response, { messages: [{ id: 'm1', threadId: 't1' }] });
    if (path.startsWith('/gmail/v1/users/me/messages/'))
      return json(response, {
        id: 'm1',
        threadId: 't1',
        snippet: 'Can we move the launch review to Thursday?',
        payload: {
          headers: [
            { name: 'From', value: 'ada@example.com' },
            { name: 'Subject', value: 'Launch review' },
          ],
        },
      });
    if (path.startsWith('/calendar/v3/'))
      return json(response, {
        items: [{ id: 'e1', summary: 'Launch review', start: { dateTime: '2026-11-26T10:00:00Z' } }],
      });
    if (path === '/drive/v3/files')
      return json(response, {
        files: [{ id: 'd1', name: 'Launch plan', mimeType: 'application/vnd.google-apps.document' }],
      });
    response.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const endpoints = { authorization_endpoint: `${url}/auth`, token_endpoint: `${url}/token`, issuer: url };
  return { url, endpoints, close: () => server.close() };
}

/** A free port for the login's callback (Google accepts any port on 127.0.0.1 for desktop clients). */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  return port;
}

const stand = google ? undefined : await standInGoogle();
const credentialStore = new InMemoryCredentialStore(); // FileCredentialStore or PostgresCredentialStore in an app
const helper = new DriveSuiteOAuthHelper({
  config: {
    client_id: process.env.GOOGLE_CLIENT_ID ?? 'stand-in-client',
    client_secret: process.env.GOOGLE_CLIENT_SECRET ?? 'stand-in-secret',
    redirect_uri: `http://127.0.0.1:${await freePort()}/callback`,
    scopes: [], // none given: what the three connectors need (DRIVE_SUITE_SCOPES), and nothing more
  },
  credentialStore,
  stateStore: new InMemoryOAuthStateStore(),
  ...(stand ? { endpoints: stand.endpoints } : {}),
});

// 1. The login: with Google, open the printed URL; the stand-in's page says yes, so "open" it here.
await loopbackLogin(helper, {
  open: async (url) => {
    console.log(`Open this URL to sign in with Google:\n  ${url}`);
    if (stand) await fetch(url); // follows the redirect to the callback, as a browser would
  },
});
console.log(`Signed in: tokens stored for ${helper.credentialKeys.join(', ')}.`);
if (stand) {
  // Only for the stand-in: the connectors call it instead of www.googleapis.com.
  for (const key of helper.credentialKeys) {
    const record = (await credentialStore.get(key))!;
    await credentialStore.put({ ...record, metadata: { ...record.metadata, base_url: stand.url } });
  }
}

// 2. The agent with the three connectors, reading the tokens from the store inside its activities.
const llm: LanguageModel | ScriptedModel = process.env.ANTHROPIC_API_KEY
  ? (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5')
  : new ScriptedModel([
      {
        toolCalls: [
          { name: 'mail_search', args: { action: 'search', query: 'newer_than:7d launch' } },
          { name: 'calendar', args: { action: 'search', query: 'this week' } },
          { name: 'file_drive', args: { action: 'search', query: 'launch' } },
        ],
      },
      {
        text: 'Ada asks to move the launch review (in your calendar this week) to Thursday; the Launch plan is in Drive.',
      },
    ]);
const agent = new Agent({
  llm,
  tools: [new MailTool(), new CalendarTool(), new FileDriveTool()],
  credentialStore,
  systemPrompt: 'You help with mail, calendar and files. Look things up before you answer.',
});

try {
  for await (const event of agent.stream('What is going on with the launch this week?')) {
    if (event.type === 'tool_completed' || event.type === 'tool_failed')
      console.log(
        `${event.type} ${String(event.payload.tool)}: ${String(event.payload.output ?? event.payload.error)}`,
      );
    if (event.type === 'tool_failed') throw new Error(`A connector failed: ${event.message}`);
    if (event.type === 'run_completed') console.log(`\nAnswer: ${String(event.payload.output)}`);
  }
} finally {
  await agent.close();
  stand?.close();
}
