import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/models/scripted.ts';
import type { RecordingServer } from '../support/http-server.ts';
import { startModernMcpServer } from '../support/mcp-modern-server.ts';
import { startBearerGate, startEverythingHttp, type EverythingHttp } from '../support/mcp-servers.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

/** The JSON-RPC methods of the recorded POSTs, with the protocol version header each carried. */
function spoken(server: RecordingServer): { method: string; version: unknown }[] {
  return server.requests
    .filter((request) => request.method === 'POST')
    .map((request) => ({
      method: String((JSON.parse(request.body) as { method?: string }).method ?? '(response)'),
      version: request.headers['mcp-protocol-version'],
    }));
}

describe('MCP servers of both protocol versions as tool sources', () => {
  let modern: RecordingServer;
  let everything: EverythingHttp;
  let legacy: RecordingServer;
  let env: TestWorker;
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'modern_add', args: { a: 2, b: 3 }, id: 'modern' }] },
    { toolCalls: [{ name: 'legacy_get-sum', args: { a: 20, b: 22 }, id: 'legacy' }] },
    { text: 'Both added.' },
  ]);

  beforeAll(async () => {
    modern = await startModernMcpServer();
    everything = await startEverythingHttp();
    legacy = await startBearerGate(everything.url, () => true); // records what server-everything is sent
    env = await startTestWorker({
      both: {
        llm: model,
        mcpServers: { modern: { url: `${modern.url}/mcp` }, legacy: { url: `${legacy.url}/mcp` } },
      },
    });
  });
  afterAll(async () => {
    await env?.stop();
    await legacy?.close();
    await everything?.stop();
    await modern?.close();
  });

  it('speaks 2026-07-28 to a server of that version and falls back to 2025-11-25 for an older one', async () => {
    const handle = await env.agents.start('both', 'Add on both servers.');
    const events = await collect(handle.events());
    const result = await handle.result();
    expect(result.output).toBe('Both added.');
    expect(result.metadata.unavailable_mcps).toEqual([]);
    expect(events.filter((e) => e.type === 'tool_completed').map((e) => e.payload.output)).toEqual([
      'The sum is 5.',
      'The sum of 20 and 22 is 42.',
    ]);

    // The 2026-07-28 server (which refuses `initialize`) was asked without one, every request at 2026-07-28.
    const toModern = spoken(modern);
    expect(toModern.map((r) => r.method)).toEqual(
      expect.arrayContaining(['server/discover', 'tools/list', 'tools/call']),
    );
    expect(toModern.map((r) => r.method)).not.toContain('initialize');
    expect(new Set(toModern.map((r) => r.version))).toEqual(new Set(['2026-07-28']));

    // The 2025-11-25 server: the probe, then the 2025 handshake and its version on what followed.
    const toLegacy = spoken(legacy);
    const initialize = toLegacy.findIndex((r) => r.method === 'initialize');
    expect(toLegacy[0]!.method).toBe('server/discover');
    expect(initialize).toBeGreaterThan(0);
    const initialized = JSON.parse(legacy.requests.filter((r) => r.method === 'POST')[initialize]!.body) as {
      params: { protocolVersion: string };
    };
    expect(initialized.params.protocolVersion).toBe('2025-11-25');
    const after = toLegacy.slice(initialize + 1).filter((r) => r.method.startsWith('tools/'));
    expect(after.map((r) => r.method)).toEqual(['tools/list', 'tools/call']);
    expect(new Set(after.map((r) => r.version))).toEqual(new Set(['2025-11-25']));
  });
});
