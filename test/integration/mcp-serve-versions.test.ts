import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { serveMcp, type McpServing } from '../../src/mcp/serve.ts';
import { queuedModel } from '../support/queued-model.ts';
import { AddTool } from './tools.ts';

const TOKEN = `mcp-versions-token-${randomUUID()}`;
const auth = { headers: { authorization: `Bearer ${TOKEN}` } };

/** One serveMcp URL, clients of both protocol versions: the 2.x SDK's, the 1.x SDK's and the Inspector CLI. */
describe('serveMcp answers MCP 2026-07-28 and 2025-11-25 clients on one URL', () => {
  const llm = queuedModel();
  let serving: McpServing;
  const closing: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    serving = await serveMcp({
      agents: { helper: { llm, tools: [new AddTool()], autoProjectSkills: false } },
      temporal: { address: inject('temporalAddress'), taskQueue: `mcp-versions-${randomUUID()}` },
      transport: { port: 0, bearerToken: TOKEN },
      worker: {
        memoryStore: new InMemoryMemoryStore(),
        workflowBundle: { codePath: inject('workflowBundlePath') },
      },
    });
  });
  afterAll(async () => {
    for (const close of closing) await close().catch(() => undefined);
    await serving?.close();
  });

  it('serves the 2.x client statelessly at 2026-07-28: no initialize, no session, progress and answer', async () => {
    const client = new ModernClient(
      { name: 'modern-test', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    const transport = new ModernTransport(new URL(serving.url!), { requestInit: auth });
    await client.connect(transport);
    closing.push(() => client.close());
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(transport.sessionId).toBeUndefined();

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['run_helper']);
    llm.push({ toolCalls: [{ name: 'add', args: { a: 20, b: 22 }, id: 'add' }] }, { text: 'It is 42.' });
    const progress: string[] = [];
    const result = await client.callTool(
      { name: 'run_helper', arguments: { prompt: 'What is 20 + 22?' } },
      { onprogress: (p) => progress.push(String(p.message)) },
    );
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'It is 42.' }]);
    const workflowId = (result.structuredContent as { workflow_id: string }).workflow_id;
    expect(progress[0]).toBe(`Run started: workflow ${workflowId}`);
    expect(progress).toContain('tool_completed: add completed (2 characters)');
  });

  it('keeps sessions for a 2025-11-25 client (the 1.x SDK) on the same URL', async () => {
    const client = new LegacyClient({ name: 'legacy-test', version: '1.0.0' });
    const transport = new LegacyTransport(new URL(serving.url!), { requestInit: auth });
    await client.connect(transport);
    closing.push(() => client.close());
    expect(transport.protocolVersion).toBe('2025-11-25');
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    llm.push({ text: 'Hello from a session.' });
    const result = await client.callTool({ name: 'run_helper', arguments: { prompt: 'Say hello' } });
    expect(result.content).toEqual([{ type: 'text', text: 'Hello from a session.' }]);
  });

  it('answers the MCP Inspector CLI on the same URL', async () => {
    const inspector = new URL('../../node_modules/.bin/mcp-inspector', import.meta.url).pathname;
    llm.push({ text: 'Hello, Inspector.' });
    const { stdout } = await promisify(execFile)(inspector, [
      '--cli',
      serving.url!,
      '--header',
      `Authorization: Bearer ${TOKEN}`,
      '--method',
      'tools/call',
      '--tool-name',
      'run_helper',
      '--tool-arg',
      'prompt=Say hello',
    ]);
    const called = JSON.parse(stdout) as { content: Array<{ text: string }> };
    expect(called.content).toEqual([{ type: 'text', text: 'Hello, Inspector.' }]);
  });
});
