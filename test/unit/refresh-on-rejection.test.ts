import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { CredentialError } from '../../src/errors.ts';
import { errorForResponse } from '../../src/http/classify.ts';
import { httpRequest } from '../../src/http/request.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { MailTool } from '../../src/tools/google/mail.ts';
import { runWithRefreshOnRejection } from '../../src/tools/refresh-on-rejection.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { toolContext } from '../support/tool-context.ts';

/**
 * One local server that is both an OAuth token endpoint (refresh grants rotate `at-N`/`rt-N`) and an
 * API that accepts only the tokens in `accepted`: a token can look valid (not expired) and still be
 * refused with 401, as after a revocation or a server-side rotation.
 */
let server: RecordingServer;
let accepted: Set<string>;
let writes: string[];
let issued: number;
beforeEach(async () => {
  accepted = new Set();
  writes = [];
  issued = 1;
  server = await startRecordingServer((request, response) => {
    if (request.path === '/token') {
      const form = new URLSearchParams(request.body);
      if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== `rt-${issued}`)
        return json(response, 400, { error: 'invalid_grant' });
      issued += 1;
      return json(response, 200, {
        access_token: `at-${issued}`,
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: `rt-${issued}`,
      });
    }
    const token = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!accepted.has(token))
      return json(response, 401, { error: { code: 401, message: 'Invalid Credentials' } });
    if (request.method === 'POST') {
      writes.push(request.body);
      return json(response, 201, { id: writes.length });
    }
    return json(response, 200, { resultSizeEstimate: 0 });
  });
});
afterEach(() => server.close());

async function oauthStore(name: string): Promise<InMemoryCredentialStore> {
  const store = new InMemoryCredentialStore();
  await store.put({
    name,
    type: 'oauth2',
    token: 'at-1',
    refresh_token: 'rt-1',
    metadata: {
      base_url: server.url,
      token_endpoint: `${server.url}/token`,
      client_id: 'app',
      client_secret: 'app-secret',
      expires_at: new Date(Date.now() + 3_600_000).toISOString(), // looks valid for an hour
    },
  });
  return store;
}

/** A connector of the user's own: writes with POST, optionally after a first POST. */
class OrdersTool extends BaseConnectorTool {
  readonly name = 'orders';
  readonly description = 'Creates orders';
  readonly parameters = z.object({ items: z.array(z.string()) });
  protected override readonly defaultCredentialKey = 'orders';
  override readonly refreshOnRejection: boolean;
  constructor(refreshOnRejection = true) {
    super();
    this.refreshOnRejection = refreshOnRejection;
  }
  async run(context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    for (const item of args.items as string[]) {
      const record = await this.getCredential(context);
      const response = await httpRequest({
        method: 'POST',
        url: `${server.url}/orders`,
        headers: { authorization: `Bearer ${record.token}` },
        body: item,
        secrets: context.secrets,
      });
      if (response.status >= 300)
        throw errorForResponse(response, { method: 'POST', service: 'Orders', idempotent: false });
      accepted.delete(record.token); // the service revokes the token after the first write
    }
    return { text: 'ordered', metadata: {} };
  }
}

describe('401 → refresh once → repeat, in the tool invocation path', () => {
  it('mail_search: a token rejected with 401 although it looked valid is refreshed and the call repeated', async () => {
    const store = await oauthStore('mail');
    accepted.add('at-2');
    const context = toolContext(store);
    const output = await runWithRefreshOnRejection(new MailTool(), context, {
      action: 'search',
      query: 'invoice',
    });
    expect(output.text).toBe('No mail matches "invoice".');
    const api = server.requests.filter((r) => r.path !== '/token');
    expect(api.map((r) => r.headers.authorization)).toEqual(['Bearer at-1', 'Bearer at-2']);
    expect(server.requests.filter((r) => r.path === '/token')).toHaveLength(1);
    expect((await store.get('mail'))!).toMatchObject({ token: 'at-2', refresh_token: 'rt-2' });
    expect(context.secrets.redact('at-2 rt-2')).not.toMatch(/at-2|rt-2/);
  });

  it('a second 401 right after the refresh is a CredentialError, with one refresh and no loop', async () => {
    const store = await oauthStore('mail');
    const error = await runWithRefreshOnRejection(new MailTool(), toolContext(store), {
      action: 'search',
      query: 'invoice',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialError);
    expect((error as Error).message).toMatch(/rejected again right after a refresh: authorize again/);
    expect(server.requests.filter((r) => r.path === '/token')).toHaveLength(1);
    expect(server.requests.filter((r) => r.path !== '/token')).toHaveLength(2);
  });

  it('a custom connector: a write refused with 401 did nothing, so it is repeated once with the new token', async () => {
    const store = await oauthStore('orders');
    accepted.add('at-2');
    expect(
      (await runWithRefreshOnRejection(new OrdersTool(), toolContext(store), { items: ['a'] })).text,
    ).toBe('ordered');
    expect(writes).toEqual(['a']);
  });

  it('is not repeated when an earlier write of the same call may have taken effect', async () => {
    const store = await oauthStore('orders');
    accepted.add('at-1');
    const error = await runWithRefreshOnRejection(new OrdersTool(), toolContext(store), {
      items: ['a', 'b'],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialError);
    expect((error as Error).message).toMatch(/earlier write of this call may already have taken effect/);
    expect(writes).toEqual(['a']);
    expect(server.requests.filter((r) => r.path === '/token')).toHaveLength(0);
  });

  it('a tool may opt out with refreshOnRejection = false; a record without a refresh token is not retried', async () => {
    const store = await oauthStore('orders');
    accepted.add('at-2');
    await expect(
      runWithRefreshOnRejection(new OrdersTool(false), toolContext(store), { items: ['a'] }),
    ).rejects.toThrow(/was rejected/);
    const bearer = new InMemoryCredentialStore();
    await bearer.put({ name: 'orders', type: 'bearer', token: 'at-1' });
    await expect(
      runWithRefreshOnRejection(new OrdersTool(), toolContext(bearer), { items: ['a'] }),
    ).rejects.toThrow(/was rejected/);
    expect(server.requests.filter((r) => r.path === '/token')).toHaveLength(0);
    expect(writes).toEqual([]);
  });
});
