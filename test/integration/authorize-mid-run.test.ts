import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Client, Connection } from '@temporalio/client';
import { inject } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { AgentClient } from '../../src/client/agent-client.ts';
import { eventStreamResponse } from '../../src/client/event-stream-response.ts';
import {
  Client as ModernMcpClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { createAgentMcpServer, createAgentMcpServerV2 } from '../../src/mcp/agent-server.ts';
import { loadMcpServerSdk, loadMcpServerV2Sdk } from '../../src/mcp/sdk.ts';
import { modernMcpRoute } from '../../src/mcp/serve-modern.ts';
import { serveHttp } from '../../src/mcp/serve-transports.ts';
import { FileCredentialStore } from '../../src/credentials/file-store.ts';
import type { CredentialStore } from '../../src/credentials/types.ts';
import { DriveSuiteOAuthHelper } from '../../src/oauth/drive-suite.ts';
import {
  FileOAuthStateStore,
  InMemoryOAuthStateStore,
  type OAuthStateEntry,
} from '../../src/oauth/state-store.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { InboxTool, mailModel } from '../support/mail-tool.ts';
import { AddTool } from './tools.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../support/oidc-server.ts';
import { firstEvent, historyText, startTestWorker, type TestWorker } from './helpers.ts';

const config = {
  client_id: 'mid-run-app',
  client_secret: 'mid-run-secret-canary-0123456789',
  redirect_uri: 'http://127.0.0.1:8979/oauth/callback',
  scopes: ['gmail.readonly'],
};

/** A state store that remembers every PKCE verifier it saw, for the canary scan. */
class WatchedStateStore extends InMemoryOAuthStateStore {
  readonly verifiers: string[] = [];
  override async put(state: string, entry: OAuthStateEntry): Promise<void> {
    if (entry.verifier) this.verifiers.push(entry.verifier);
    await super.put(state, entry);
  }
}

/** The stand-in mail API: a token is valid when it is the tenant's stored `mail` token; `send` needs gmail.send. */
function startMailApi(store: CredentialStore): Promise<RecordingServer> {
  return startRecordingServer(async (request, response) => {
    const token = String(request.headers.authorization).replace(/^Bearer /, '');
    const record = await store.get('mail', { tenant: request.query.get('tenant') || undefined });
    if (!record || record.token !== token) return json(response, 401, { error: 'invalid token' });
    const scopes = (record.metadata?.scopes as string[] | undefined) ?? [];
    if (request.path === '/send' && !scopes.includes('gmail.send')) {
      const challenge = 'Bearer error="insufficient_scope", scope="gmail.send"';
      return json(
        response,
        403,
        { error: { code: 403, message: 'Insufficient scope' } },
        {
          'www-authenticate': challenge,
        },
      );
    }
    json(response, 200, request.path === '/send' ? { sent: true } : { unread: 3 });
  });
}

/** The Server-Sent Events text of `response` up to the first event of `type`. */
async function readUntil(response: Response, type: string): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  while (!text.includes(`"type":"${type}"`)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  return text;
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('Timed out waiting.');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The inbox as a fast tool: its calls ride with the next model step until one needs a grant. */
class FastInboxTool extends InboxTool {
  override readonly fast = true;
}

describe('authorization in the middle of a run (real OAuth server, real Temporal)', () => {
  let as: LocalAuthorizationServer;
  let api: RecordingServer;
  let env: TestWorker;
  const store = new InMemoryCredentialStore();
  const stateStore = new WatchedStateStore();
  const tool = new InboxTool();
  const fastTool = new FastInboxTool();
  const codes: string[] = [];
  const helperOptions = () => ({
    config,
    services: ['mail' as const],
    credentialStore: store,
    stateStore,
    endpoints: as.endpoints,
  });
  /** The app's callback route: the helper stores the tokens and wakes the waiting runs. */
  let callbackHelper: DriveSuiteOAuthHelper;
  async function callback(url: string, helper = callbackHelper): Promise<void> {
    const back = await as.authorize(url);
    codes.push(back.searchParams.get('code')!);
    await helper.exchangeCode(
      back.searchParams.get('code')!,
      back.searchParams.get('state')!,
      back.searchParams,
    );
  }

  beforeAll(async () => {
    as = await startAuthorizationServer({ ...config, scopes: ['gmail.readonly', 'gmail.send'] });
    api = await startMailApi(store);
    tool.apiUrl = api.url;
    fastTool.apiUrl = api.url;
    const workerHelper = new DriveSuiteOAuthHelper(helperOptions());
    const authorization = { helpers: { mail: workerHelper } };
    env = await startTestWorker({
      // It looks in the store itself only hourly: a run that resumes at once was woken by the callback.
      mailer: {
        llm: mailModel(),
        tools: [tool],
        credentialStore: store,
        authorization: { ...authorization, checkEveryMs: 3_600_000 },
      },
      fastMailer: { llm: mailModel(), tools: [fastTool], credentialStore: store, authorization },
      patient: {
        llm: mailModel(),
        tools: [tool],
        credentialStore: store,
        authorization: { ...authorization, timeoutMs: 1_500 },
      },
      // One step asks for inbox (which waits) and add (which must not wait with it).
      mixed: {
        llm: new ScriptedModel([
          {
            toolCalls: [
              { name: 'inbox', args: { path: 'unread' } },
              { name: 'add', args: { a: 2, b: 3 } },
            ],
          },
          { text: 'both done' },
        ]),
        tools: [tool, new AddTool()],
        credentialStore: store,
        authorization,
      },
      checker: {
        llm: mailModel(),
        tools: [tool],
        credentialStore: store,
        authorization: { ...authorization, checkEveryMs: 1_000 },
      },
      strict: {
        llm: mailModel(),
        tools: [tool],
        credentialStore: store,
        authorization: { ...authorization, timeoutMs: 1_500, onTimeout: 'stop' },
      },
    });
    callbackHelper = new DriveSuiteOAuthHelper({ ...helperOptions(), client: env.agents });
  });
  afterAll(async () => {
    await env?.stop();
    await api?.close();
    await as?.close();
  });

  it('asks for mail with no record, follows the URL through login and consent, and resumes the same call', async () => {
    const handle = await env.agents.start('mailer', 'How much unread mail?', { tenant: 'ada-1' });
    const asked = await firstEvent(handle.events(), 'authorization_required');
    const url = String(asked.payload.url);
    expect(url.startsWith(as.endpoints.authorization_endpoint)).toBe(true);
    expect(asked.payload).toMatchObject({ credential_key: 'mail', tenant: 'ada-1', reason: 'missing' });
    expect(asked.payload.scopes).toEqual(['gmail.readonly']);
    expect(Date.parse(String(asked.payload.expires_at))).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const pending = await until(async () => {
      const list = await handle.pendingAuthorizations();
      return list.length ? list : undefined;
    });
    expect(pending).toMatchObject([{ credential_key: 'mail', tool: 'inbox', url }]);
    // Where it shows: the Temporal UI's current details, and listings (the run's memo).
    const metadata = await handle.workflow.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toMatch(/^\*\*Waiting for authorization of mail\*\*/);
    const listed = await until(async () => {
      const runs = await env.agents.list({ tenant: 'ada-1', status: 'running' });
      return runs[0]?.waitingForAuthorization.length ? runs[0] : undefined;
    });
    expect(listed.waitingForAuthorization).toEqual(['mail']);

    const back = await as.authorize(url);
    codes.push(back.searchParams.get('code')!);
    await callbackHelper.exchangeCode(
      back.searchParams.get('code')!,
      back.searchParams.get('state')!,
      back.searchParams,
    );
    // Resumed by the callback's wake-up (its own check of the store is an hour away).
    const result = await handle.result();
    expect(result.output).toBe('answer: {"unread":3}');
    expect(await store.get('mail', { tenant: 'ada-1' })).toBeDefined();
    expect(await store.get('mail')).toBeUndefined();
    const events = await handle.listEvents();
    const types = events.map((e) => e.type);
    expect(types).toContain('authorization_granted');
    // The same call ran again: one tool_called before the wait, one after, one completion.
    expect(events.filter((e) => e.type === 'tool_completed')).toHaveLength(1);
    expect(new Set(events.filter((e) => e.type === 'tool_called').map((e) => e.payload.call_id)).size).toBe(
      1,
    );
  });

  it('waits for the grant of a fast call that rode with the next model step, then runs it as an activity', async () => {
    const handle = await env.agents.start('fastMailer', 'How much unread mail?', { tenant: 'ada-fast' });
    const asked = await firstEvent(handle.events(), 'authorization_required');
    await callback(String(asked.payload.url));
    expect((await handle.result()).output).toBe('answer: {"unread":3}');
    const events = await handle.listEvents();
    expect(events.filter((e) => e.type === 'tool_completed')).toHaveLength(1);
    const history = (await handle.workflow.fetchHistory()).events ?? [];
    const scheduled = history.flatMap(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? [],
    );
    // The opening step, the step that carried the call (not taken: the call needs a grant), the
    // call as an activity (asking, then after the grant), and the model step taken after it.
    expect(scheduled).toEqual(['openRun', 'callModel', 'invokeTool', 'invokeTool', 'callModel']);
  });

  it('does not hold up the other calls of the step while one waits', async () => {
    const handle = await env.agents.start('mixed', 'Inbox and a sum', { tenant: 'ada-6' });
    const asked = await firstEvent(handle.events(), 'authorization_required');
    const added = await until(async () => {
      const events = await handle.listEvents();
      return events.find((e) => e.type === 'tool_completed' && e.payload.tool === 'add');
    });
    expect(added.payload.output).toBe('5');
    expect(await handle.pendingAuthorizations()).toHaveLength(1); // inbox still waits
    await callback(String(asked.payload.url));
    expect((await handle.result()).output).toBe('both done');
    const completed = (await handle.listEvents()).filter((e) => e.type === 'tool_completed');
    expect(completed.map((e) => e.payload.tool)).toEqual(['add', 'inbox']);
  });

  it('wakes two runs and one chat turn waiting on the same key with one authorization', async () => {
    const runs = await Promise.all(
      [1, 2].map(() => env.agents.start('mailer', 'How much unread mail?', { tenant: 'ada-2' })),
    );
    const chat = env.agents.chatSession('mailer', { tenant: 'ada-2' });
    const turn = chat.send('How much unread mail in chat?');
    const urls = await until(async () => {
      const lists = await Promise.all([...runs, chat].map((w) => w.pendingAuthorizations()));
      return lists.every((l) => l.length === 1) ? lists.map((l) => l[0]!.url) : undefined;
    });
    await callback(urls[1]!);
    const results = await Promise.all([...runs.map((r) => r.result()), turn]);
    for (const result of results) expect(result.output).toBe('answer: {"unread":3}');
  });

  it('asks an under-scoped token for the missing scope plus those granted, then the same call succeeds', async () => {
    const seed = new DriveSuiteOAuthHelper({ ...helperOptions(), tenant: 'ada-3' });
    await callback(await seed.buildAuthorizationUrl(), seed);
    const seeded = await store.get('mail', { tenant: 'ada-3' });
    expect(seeded?.metadata?.scopes).not.toContain('gmail.send');
    const handle = await env.agents.start('mailer', 'Please send the report', { tenant: 'ada-3' });
    const asked = await firstEvent(handle.events(), 'authorization_required');
    expect(asked.payload).toMatchObject({ reason: 'insufficient_scope', missing_scopes: ['gmail.send'] });
    const url = new URL(String(asked.payload.url));
    const granted = (seeded!.metadata!.scopes as string[]).filter((s) => s !== 'gmail.send');
    expect(url.searchParams.get('scope')!.split(' ').sort()).toEqual([...granted, 'gmail.send'].sort());
    expect(url.searchParams.get('include_granted_scopes')).toBe('true');
    await callback(url.toString());
    expect((await handle.result()).output).toBe('answer: {"sent":true}');
  });

  it("ends a wait that times out as configured: 'continue' answers the model, 'stop' ends the run", async () => {
    const patient = await env.agents.start('patient', 'How much unread mail?', { tenant: 'nobody-1' });
    const result = await patient.result();
    expect(result.metadata.stop_reason).toBe('completed');
    expect(result.output).toMatch(/^answer: Not authorized: nobody authorized "mail" within 1\.5 s/);
    const types = (await patient.listEvents()).map((e) => e.type);
    expect(types).toContain('authorization_timed_out');

    const strict = await env.agents.start('strict', 'How much unread mail?', { tenant: 'nobody-2' });
    const stopped = await strict.result();
    expect(stopped.metadata.stop_reason).toBe('authorization_timeout');
  });

  it('carries the event in eventStreamResponse, and asks MCP clients by URL elicitation or a tool error naming the URL', async () => {
    const handle = await env.agents.start('mailer', 'How much unread mail?', { tenant: 'ada-5' });
    const text = await readUntil(eventStreamResponse(handle), 'authorization_required');
    const url = /"url":"([^"]+)"/.exec(text)![1]!;
    expect(url.startsWith(as.endpoints.authorization_endpoint)).toBe(true);
    await callback(url);
    await handle.result();

    // Over Streamable HTTP as a client reaches serveMcp: with sessions, the server knows the client's capabilities.
    const sdk = await loadMcpServerSdk();
    const token = `mcp-${randomUUID()}`;
    const mailer = () => createAgentMcpServer(sdk, env.agents, ['mailer']);
    const sessions = await serveHttp(sdk, mailer, { port: 0, bearerToken: token });
    const stateless = await serveHttp(sdk, mailer, { port: 0, bearerToken: token, stateless: true });
    const over = (served: { url?: string }) =>
      new StreamableHTTPClientTransport(new URL(served.url!), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      });
    // A client that supports URL elicitation: asked to open the URL; the call then answers.
    const eliciting = new McpClient(
      { name: 'test', version: '1' },
      { capabilities: { elicitation: { url: {} } } },
    );
    const elicited: string[] = [];
    eliciting.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as { mode?: string; url?: string };
      elicited.push(String(params.url));
      void callback(String(params.url)); // the user opens it and grants
      return { action: 'accept' };
    });
    try {
      await eliciting.connect(over(sessions));
      await store.delete('mail'); // the shared record: none, so the MCP run (no tenant) asks
      const progress: string[] = [];
      const answered = (await eliciting.callTool(
        { name: 'run_mailer', arguments: { prompt: 'How much unread mail?' } },
        undefined,
        { onprogress: (update) => void progress.push(String(update.message)) },
      )) as CallToolResult;
      expect(elicited).toHaveLength(1);
      expect(elicited[0]!.startsWith(as.endpoints.authorization_endpoint)).toBe(true);
      expect(answered.isError).toBeFalsy();
      expect(answered.content).toEqual([{ type: 'text', text: 'answer: {"unread":3}' }]);
      expect(progress.some((message) => message.startsWith('authorization_required:'))).toBe(true);
      await eliciting.close();

      // A client without it (or a stateless server, which never saw its initialize): the tool call
      // ends with an error naming the URL; the run keeps waiting.
      await store.delete('mail');
      const plain = new McpClient(
        { name: 'plain', version: '1' },
        { capabilities: { elicitation: { url: {} } } },
      );
      await plain.connect(over(stateless));
      const refused = (await plain.callTool({
        name: 'run_mailer',
        arguments: { prompt: 'How much unread mail?' },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      const message = (refused.content[0] as { text: string }).text;
      const named = /open (\S+) to authorize/.exec(message)![1]!;
      expect(named.startsWith(as.endpoints.authorization_endpoint)).toBe(true);
      const workflowId = /Run (\S+) waits/.exec(message)![1]!;
      await callback(named);
      expect((await env.agents.getHandle(workflowId).result()).output).toBe('answer: {"unread":3}');
      await plain.close();
    } finally {
      await sessions.close();
      await stateless.close();
    }
  });

  it('asks a 2026-07-28 MCP client through input_required, and its retry goes on with the same run', async () => {
    const sdk = await loadMcpServerSdk();
    const v2 = (await loadMcpServerV2Sdk())!;
    const token = `mcp-${randomUUID()}`;
    const served = await serveHttp(
      sdk,
      () => createAgentMcpServer(sdk, env.agents, ['mailer']),
      { port: 0, bearerToken: token },
      modernMcpRoute(v2, () => createAgentMcpServerV2(v2, env.agents, ['mailer'])),
    );
    const client = new ModernMcpClient(
      { name: 'modern', version: '1' },
      { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: 'auto' } },
    );
    const elicited: string[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      const params = request.params as { mode?: string; url?: string };
      elicited.push(`${params.mode} ${params.url}`);
      void callback(String(params.url)); // the user opens it and grants
      return { action: 'accept' };
    });
    try {
      await client.connect(
        new ModernTransport(new URL(served.url!), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      expect(client.getProtocolEra()).toBe('modern');
      await store.delete('mail'); // the shared record: none, so the MCP run (no tenant) asks
      const progress: string[] = [];
      const answered = await client.callTool(
        { name: 'run_mailer', arguments: { prompt: 'How much unread mail?' } },
        { onprogress: (update) => void progress.push(String(update.message)) },
      );
      expect(elicited).toHaveLength(1);
      expect(elicited[0]!.startsWith(`url ${as.endpoints.authorization_endpoint}`)).toBe(true);
      expect(answered.isError).toBeFalsy();
      expect(answered.content).toEqual([{ type: 'text', text: 'answer: {"unread":3}' }]);
      // One run: the retry read on from the event it stopped at, it did not start another.
      const workflowId = (answered.structuredContent as { workflow_id: string }).workflow_id;
      expect(progress.filter((message) => message.startsWith('Run started'))).toEqual([
        `Run started: workflow ${workflowId}`,
      ]);
      expect(progress.filter((message) => message.startsWith('authorization_required:'))).toHaveLength(1);
      expect(progress.at(-1)).toMatch(/^run_completed: /);
    } finally {
      await client.close().catch(() => undefined);
      await served.close();
    }
  });

  it('finds a token stored without a wake-up by looking in the store itself', async () => {
    const handle = await env.agents.start('checker', 'How much unread mail?', { tenant: 'ada-4' });
    await firstEvent(handle.events(), 'authorization_required');
    const seed = new DriveSuiteOAuthHelper({ ...helperOptions(), tenant: 'ada-4' });
    await callback(await seed.buildAuthorizationUrl(), seed); // no client: nobody is woken
    // Nobody wakes it: only its own check of the store (every second here) can resume it.
    expect((await handle.result()).output).toBe('answer: {"unread":3}');
  });

  it('leaves no access token, refresh token, code or code verifier in any history or event', async () => {
    const listing = await env.agents.list({ limit: 50 });
    let seen = '';
    for (const run of listing) {
      const handle = env.client.workflow.getHandle(run.workflowId);
      seen += await historyText(handle);
      seen += JSON.stringify(
        await env.agents
          .getHandle(run.workflowId)
          .listEvents()
          .catch(() => []),
      );
    }
    const secrets = [config.client_secret, ...codes, ...stateStore.verifiers];
    for (const tenant of ['ada-1', 'ada-2', 'ada-3', 'ada-4', 'ada-5', 'ada-6']) {
      const record = await store.get('mail', { tenant });
      secrets.push(record!.token, record!.refresh_token!);
    }
    expect(codes.length).toBeGreaterThan(2);
    expect(stateStore.verifiers.length).toBeGreaterThan(2);
    for (const secret of secrets) expect(seen).not.toContain(secret);
  });
});

describe('a worker SIGKILLed while runs wait for authorization', () => {
  const processes: NodeProcess[] = [];
  let dir: string;
  let as: LocalAuthorizationServer;
  let api: RecordingServer;
  let connection: Connection;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'authorize-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
    as = await startAuthorizationServer({ ...config, scopes: ['gmail.readonly'] });
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await api?.close();
    await as?.close();
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('resumes the waiting runs on a new worker after the grant', async () => {
    const credentialStore = new FileCredentialStore({ path: join(dir, 'credentials.json') });
    const stateStore = new FileOAuthStateStore({ path: join(dir, 'states.json') });
    api = await startMailApi(credentialStore);
    const taskQueue = `authorize-${randomUUID()}`;
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: taskQueue,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      CREDENTIALS_FILE: credentialStore.path,
      STATES_FILE: stateStore.path,
      ISSUER: as.issuer,
      API_URL: api.url,
      MID_RUN_CLIENT_ID: config.client_id,
      MID_RUN_CLIENT_SECRET: config.client_secret,
      MID_RUN_REDIRECT_URI: config.redirect_uri,
    };
    const first = startNodeProcess('test/fixtures/authorize-worker.ts', env);
    processes.push(first);
    await first.waitForLine(/^READY$/);
    const agents = new AgentClient({ client: new Client({ connection }), taskQueue });
    const runs = await Promise.all(
      [1, 2].map(() => agents.start('mailer', 'How much unread mail?', { tenant: 'grace' })),
    );
    const urls = await until(async () => {
      const lists = await Promise.all(runs.map((run) => run.pendingAuthorizations()));
      return lists.every((list) => list.length === 1) ? lists.map((list) => list[0]!.url) : undefined;
    });
    first.child.kill('SIGKILL');
    await first.exited;

    // The user authorizes while no worker runs: the wake-ups wait in the runs' histories.
    const callbackHelper = new DriveSuiteOAuthHelper({
      config,
      services: ['mail'],
      credentialStore,
      stateStore,
      endpoints: as.endpoints,
      client: agents,
    });
    const back = await as.authorize(urls[0]!);
    await callbackHelper.exchangeCode(
      back.searchParams.get('code')!,
      back.searchParams.get('state')!,
      back.searchParams,
    );
    const second = startNodeProcess('test/fixtures/authorize-worker.ts', env);
    processes.push(second);
    for (const run of runs) expect((await run.result()).output).toBe('answer: {"unread":3}');
    const record = await credentialStore.get('mail', { tenant: 'grace' });
    const seen =
      (await Promise.all(runs.map((run) => historyText(run.workflow)))).join('') +
      first.stderr() +
      second.stderr();
    for (const secret of [
      record!.token,
      record!.refresh_token!,
      back.searchParams.get('code')!,
      config.client_secret,
    ])
      expect(seen).not.toContain(secret);
  });
});
