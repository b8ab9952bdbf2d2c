import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../src/common/events.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { errorForResponse } from '../../src/http/classify.ts';
import { httpRequest } from '../../src/http/request.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { DriveSuiteOAuthHelper } from '../../src/oauth/drive-suite.ts';
import { InMemoryOAuthStateStore, type OAuthStateEntry } from '../../src/oauth/state-store.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { startAuthorizationServer, type LocalAuthorizationServer } from '../support/oidc-server.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';

const config = {
  client_id: 'mid-run-app',
  client_secret: 'mid-run-secret-canary-0123456789',
  redirect_uri: 'http://127.0.0.1:8979/oauth/callback',
  scopes: ['gmail.readonly'],
};

/** A Gmail-like connector: `unread` needs any grant, `send` needs gmail.send (403 insufficient_scope otherwise). */
class InboxTool extends BaseConnectorTool {
  readonly name = 'inbox';
  readonly description = 'Reads or sends mail';
  readonly parameters = z.object({ path: z.enum(['unread', 'send']) });
  protected override readonly defaultCredentialKey = 'mail';
  protected override readonly credentialTypes = ['oauth2'] as const;
  apiUrl = '';

  async run(context: ToolContext, args: { path: string }): Promise<ToolOutput> {
    const record = await this.getCredential(context);
    const response = await httpRequest({
      method: 'GET',
      url: `${this.apiUrl}/${args.path}?tenant=${context.tenant ?? ''}`,
      headers: { authorization: `Bearer ${record.token}` },
      secrets: context.secrets,
    });
    if (response.status !== 200)
      throw errorForResponse(response, {
        method: 'GET',
        service: 'Inbox',
        idempotent: true,
        credentialKey: 'mail',
      });
    return { text: response.text(), metadata: {} };
  }
}

/** Calls the tool the prompt names, then answers with the tool's result. */
function mailModel(): ScriptedModel {
  const step = (request: ModelRequest): ScriptedStep => {
    const last = request.messages.at(-1);
    if (last?.role === 'tool') return { text: `answer: ${String(last.content)}` };
    const prompt = String(request.messages.findLast((m) => m.role === 'user')?.content ?? '');
    return { toolCalls: [{ name: 'inbox', args: { path: prompt.includes('send') ? 'send' : 'unread' } }] };
  };
  return new ScriptedModel(Array.from({ length: 200 }, () => step));
}

/** A state store that remembers every PKCE verifier it saw, for the canary scan. */
class WatchedStateStore extends InMemoryOAuthStateStore {
  readonly verifiers: string[] = [];
  override async put(state: string, entry: OAuthStateEntry): Promise<void> {
    if (entry.verifier) this.verifiers.push(entry.verifier);
    await super.put(state, entry);
  }
}

async function firstEvent(events: AsyncIterable<AgentEvent>, type: string): Promise<AgentEvent> {
  for await (const event of events) if (event.type === type) return event;
  throw new Error(`The run ended without ${type}.`);
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

describe('authorization in the middle of a run (real OAuth server, real Temporal)', () => {
  let as: LocalAuthorizationServer;
  let api: RecordingServer;
  let env: TestWorker;
  const store = new InMemoryCredentialStore();
  const stateStore = new WatchedStateStore();
  const tool = new InboxTool();
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
    api = await startRecordingServer(async (request, response) => {
      const token = String(request.headers.authorization).replace(/^Bearer /, '');
      const record = await store.get('mail', { tenant: request.query.get('tenant') || undefined });
      if (!record || record.token !== token) return json(response, 401, { error: 'invalid token' });
      if (request.path === '/send') {
        const scopes = (record.metadata?.scopes as string[] | undefined) ?? [];
        if (!scopes.includes('gmail.send')) {
          return json(
            response,
            403,
            { error: { code: 403, message: 'Insufficient scope' } },
            {
              'www-authenticate': 'Bearer error="insufficient_scope", scope="gmail.send"',
            },
          );
        }
        return json(response, 200, { sent: true });
      }
      json(response, 200, { unread: 3 });
    });
    tool.apiUrl = api.url;
    const workerHelper = new DriveSuiteOAuthHelper(helperOptions());
    const authorization = { helpers: { mail: workerHelper } };
    env = await startTestWorker({
      mailer: { llm: mailModel(), tools: [tool], credentialStore: store, authorization },
      patient: {
        llm: mailModel(),
        tools: [tool],
        credentialStore: store,
        authorization: { ...authorization, timeoutMs: 1_500 },
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

    const back = await as.authorize(url);
    codes.push(back.searchParams.get('code')!);
    const calledBack = Date.now();
    await callbackHelper.exchangeCode(
      back.searchParams.get('code')!,
      back.searchParams.get('state')!,
      back.searchParams,
    );
    const result = await handle.result();
    expect(Date.now() - calledBack).toBeLessThan(2_000);
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
    for (const tenant of ['ada-1', 'ada-2', 'ada-3']) {
      const record = await store.get('mail', { tenant });
      secrets.push(record!.token, record!.refresh_token!);
    }
    expect(codes.length).toBeGreaterThan(2);
    expect(stateStore.verifiers.length).toBeGreaterThan(2);
    for (const secret of secrets) expect(seen).not.toContain(secret);
  });
});
