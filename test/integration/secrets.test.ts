import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { errorForResponse } from '../../src/http/classify.ts';
import { httpRequest } from '../../src/http/request.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';

const CANARY = 'sk-canary-7f3a9c1e5b2d';

/** Calls the upstream with the stored token; the upstream echoes the token back, in data or in an error. */
class WhoAmITool extends BaseConnectorTool {
  readonly name = 'whoami';
  readonly description = 'Asks the upstream who the token belongs to';
  readonly parameters = z.object({ path: z.string() });
  protected override readonly defaultCredentialKey = 'upstream';
  baseUrl = '';

  async run(context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const { token } = await this.getCredential(context);
    const response = await httpRequest({
      method: 'GET',
      url: `${this.baseUrl}${String(args.path)}`,
      headers: { authorization: `Bearer ${token}` },
      secrets: context.secrets,
      signal: context.signal,
    });
    if (response.status !== 200) {
      throw errorForResponse(response, {
        method: 'GET',
        service: 'WhoAmI',
        idempotent: true,
        credentialKey: this.credentialKey,
      });
    }
    return { text: response.text(), metadata: { echoed: response.text() } };
  }
}

describe('secrets stay inside activities', () => {
  let upstream: Server;
  let env: TestWorker;
  const received: string[] = [];
  const tool = new WhoAmITool();

  beforeAll(async () => {
    upstream = createServer((request, response) => {
      const auth = request.headers.authorization ?? '';
      received.push(auth);
      const token = auth.replace(/^Bearer /, '');
      if (request.url === '/me') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ user: 'ada', token, basic: Buffer.from(`ada:${token}`).toString('base64') }),
        );
      } else {
        response.writeHead(401, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: 'invalid_token', detail: `token ${token} is revoked` }));
      }
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    tool.baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'upstream', type: 'bearer', token: CANARY });
    env = await startTestWorker({
      leaky: {
        llm: new ScriptedModel([
          {
            toolCalls: [
              { name: 'whoami', args: { path: '/me' }, id: 'ok' },
              { name: 'whoami', args: { path: '/revoked' }, id: 'err' },
            ],
          },
          { text: 'Done.' },
        ]),
        tools: [tool],
        credentialStore,
      },
    });
  });
  afterAll(async () => {
    await env?.stop();
    upstream?.close();
  });

  it('never lets the canary into history, events or the stored conversation, even when the upstream echoes it', async () => {
    const handle = await env.agents.start('leaky', 'Who am I?');
    const events = await collect(handle.events());
    await handle.result();

    // The tool really used the secret upstream, on both calls.
    expect(received).toEqual([`Bearer ${CANARY}`, `Bearer ${CANARY}`]);
    expect(events.find((e) => e.type === 'tool_completed')?.payload.output).toContain('[REDACTED]');
    expect(events.find((e) => e.type === 'tool_failed')?.payload.error).toMatch(
      /401.*token \[REDACTED\] is revoked/,
    );

    const forms = [
      CANARY,
      Buffer.from(CANARY).toString('base64'),
      Buffer.from(`ada:${CANARY}`).toString('base64'),
    ];
    const history = await historyText(handle.workflow);
    expect(history).toContain('whoami'); // the scan reads decoded payloads
    const stored = JSON.stringify(await env.memoryStore.read(handle.workflowId));
    for (const text of [history, JSON.stringify(events), stored]) {
      for (const form of forms) expect(text).not.toContain(form);
    }
  });
});
