import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { errorForResponse } from '../../src/http/classify.ts';
import { httpRequest } from '../../src/http/request.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import {
  authorizeMail,
  startAuthorizationServer,
  type LocalAuthorizationServer,
} from '../support/oidc-server.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';

const config = {
  client_id: 'run-app',
  client_secret: 'run-app-secret-0123456789',
  redirect_uri: 'http://127.0.0.1:8978/oauth/callback',
  scopes: ['gmail.readonly', 'offline_access'],
};
const revoked = new Set<string>();

/** A Gmail-like connector: on a 401 it refreshes once and retries, as every OAuth connector does. */
class InboxTool extends BaseConnectorTool {
  readonly name = 'inbox';
  readonly description = 'Counts unread mail';
  readonly parameters = z.object({});
  protected override readonly defaultCredentialKey = 'mail';
  protected override readonly credentialTypes = ['oauth2'] as const;
  apiUrl = '';

  async run(context: ToolContext): Promise<ToolOutput> {
    let record = await this.getCredential(context);
    for (let attempt = 0; ; attempt++) {
      const response = await httpRequest({
        method: 'GET',
        url: `${this.apiUrl}/unread`,
        headers: { authorization: `Bearer ${record.token}` },
        secrets: context.secrets,
      });
      if (response.status === 401 && attempt === 0) {
        record = await this.refreshAfterRejection(context, record);
        continue;
      }
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
}

describe('OAuth tokens in real runs', () => {
  let as: LocalAuthorizationServer;
  let api: RecordingServer;
  let env: TestWorker;
  const store = new InMemoryCredentialStore();
  const tool = new InboxTool();

  beforeAll(async () => {
    as = await startAuthorizationServer({ ...config, scopes: ['gmail.readonly'] });
    api = await startRecordingServer((request, response) => {
      const token = String(request.headers.authorization).replace(/^Bearer /, '');
      if (revoked.has(token))
        return json(response, 401, { error: { code: 401, message: `Invalid Credentials for ${token}` } });
      json(response, 200, { unread: 3 });
    });
    tool.apiUrl = api.url;
    await authorizeMail(as, config, store);
    const steps = Array.from({ length: 2 }, () => [
      { toolCalls: [{ name: 'inbox', args: {} }] },
      { text: 'done' },
    ]).flat();
    env = await startTestWorker({
      mailer: { llm: new ScriptedModel(steps), tools: [tool], credentialStore: store },
    });
  });
  afterAll(async () => {
    await env?.stop();
    await api?.close();
    await as?.close();
  });

  it('refreshes once after a 401 and retries; no token reaches history or events', async () => {
    const before = (await store.get('mail'))!;
    revoked.add(before.token);
    const refreshes = as.grants.filter((g) => g === 'refresh_token').length;
    const handle = await env.agents.start('mailer', 'How much unread mail?');
    const events = await collect(handle.events());
    const after = (await store.get('mail'))!;

    expect(events.find((e) => e.type === 'tool_completed')?.payload.output).toBe('{"unread":3}');
    expect(as.grants.filter((g) => g === 'refresh_token').length - refreshes).toBe(1);
    expect(after.token).not.toBe(before.token);
    const seen = (await historyText(handle.workflow)) + JSON.stringify(events);
    for (const secret of [
      before.token,
      before.refresh_token!,
      after.token,
      after.refresh_token!,
      config.client_secret,
    ]) {
      expect(seen).not.toContain(secret);
    }
  });

  it('fails the tool call with a clear, non-retried error on invalid_grant, leaking nothing', async () => {
    const record = (await store.get('mail'))!;
    await store.put({
      ...record,
      refresh_token: 'rt-canary-no-longer-valid',
      metadata: { ...record.metadata, expires_at: new Date(Date.now() - 1000).toISOString() },
    });
    const handle = await env.agents.start('mailer', 'How much unread mail?');
    const events = await collect(handle.events());
    const failed = events.find((e) => e.type === 'tool_failed');
    expect(failed?.payload).toMatchObject({ error_type: 'CredentialError' });
    expect(String(failed?.payload.error)).toMatch(/invalid_grant.*Authorize again/);
    expect((await handle.result()).output).toBe('done');
    const seen = (await historyText(handle.workflow)) + JSON.stringify(events);
    for (const secret of ['rt-canary-no-longer-valid', record.token, config.client_secret])
      expect(seen).not.toContain(secret);
  });
});
