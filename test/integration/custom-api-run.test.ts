import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { CustomAPITool } from '../../src/tools/http/custom-api.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

describe('custom_api in a real agent run', () => {
  let api: RecordingServer;
  let env: TestWorker;
  let limitedOnce = false;

  beforeAll(async () => {
    api = await startRecordingServer((request, response) => {
      if (request.path === '/v1/report' && !limitedOnce) {
        limitedOnce = true;
        return json(response, 429, { error: 'rate_limited' }, { 'retry-after': '1' });
      }
      if (request.path === '/v1/orders' && request.method === 'POST') return; // accepted, never answered
      json(response, 200, { report: 'ready' });
    });
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({
      name: 'custom_api',
      type: 'bearer',
      token: 'tok-run',
      metadata: { base_url: `${api.url}/v1` },
    });
    const tool = new CustomAPITool({ timeouts: { headersMs: 300 } });
    env = await startTestWorker({
      reader: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'custom_api', args: { method: 'GET', path: '/report' }, id: 'get_1' }] },
          { text: 'Report is ready.' },
        ]),
        tools: [tool],
        credentialStore,
      },
      writer: {
        llm: new ScriptedModel([
          {
            toolCalls: [
              {
                name: 'custom_api',
                args: { method: 'POST', path: '/orders', body: { sku: 'A-1' } },
                id: 'post_1',
              },
            ],
          },
          { text: 'The order may or may not exist; I will check before retrying.' },
        ]),
        tools: [tool],
        credentialStore,
      },
    });
  });
  afterAll(async () => {
    await env?.stop();
    await api?.close();
  });

  it('retries a GET answered 429 after the Retry-After delay', async () => {
    const handle = await env.agents.start('reader', 'Get the report');
    const events = await collect(handle.events());
    const reports = api.requests.filter((r) => r.path === '/v1/report');
    expect(reports).toHaveLength(2);
    expect(reports[1]!.receivedAt - reports[0]!.receivedAt).toBeGreaterThanOrEqual(950);
    expect(events.find((e) => e.type === 'tool_completed')?.payload.output).toContain('"report":"ready"');
    expect(events.some((e) => e.type === 'tool_failed')).toBe(false);
  });

  it('does not repeat a POST that timed out after it was sent, and tells the model', async () => {
    const handle = await env.agents.start('writer', 'Place the order');
    const events = await collect(handle.events());
    expect(api.requests.filter((r) => r.path === '/v1/orders')).toHaveLength(1);
    const failed = events.find((e) => e.type === 'tool_failed');
    expect(failed?.payload).toMatchObject({
      tool: 'custom_api',
      call_id: 'post_1',
      error_type: 'UpstreamError',
    });
    expect(String(failed?.payload.error)).toMatch(/after the request was sent.*may have taken effect/);
    expect((await handle.result()).output).toMatch(/may or may not exist/);
  });
});
