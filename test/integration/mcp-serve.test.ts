import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { AgentClient } from '../../src/client/agent-client.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { loadMcpServerSdk } from '../../src/mcp/sdk.ts';
import { serveMcp, type McpServing } from '../../src/mcp/serve.ts';
import { serveHttp } from '../../src/mcp/serve-transports.ts';
import { queuedModel } from '../support/queued-model.ts';
import { AddTool } from './tools.ts';

const TOKEN = `mcp-serve-token-${randomUUID()}`;

/** serveMcp over Streamable HTTP, driven by the MCP SDK's own Client. */
describe('serveMcp: our agents as an MCP server', () => {
  const llm = queuedModel();
  const triageLlm = queuedModel();
  const Triage = z.object({ priority: z.enum(['low', 'high']), team: z.string() });
  const taskQueue = `mcp-serve-${randomUUID()}`;
  let serving: McpServing;
  let connection: Connection;
  let agents: AgentClient;
  const clients: McpClient[] = [];

  async function connect(token = TOKEN): Promise<McpClient> {
    const client = new McpClient({ name: 'serve-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(serving.url!), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    const address = inject('temporalAddress');
    serving = await serveMcp({
      agents: {
        helper: { llm, tools: [new AddTool()], autoProjectSkills: false },
        triage: { llm: triageLlm, output: Triage, outputRepairs: 0, autoProjectSkills: false },
      },
      temporal: { address, taskQueue },
      transport: { port: 0, bearerToken: TOKEN },
      worker: {
        memoryStore: new InMemoryMemoryStore(),
        workflowBundle: { codePath: inject('workflowBundlePath') },
      },
    });
    connection = await Connection.connect({ address });
    agents = new AgentClient({ client: new Client({ connection }), taskQueue });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await serving?.close();
    await connection?.close();
  });

  it('refuses requests without the bearer token with 401', async () => {
    const response = await fetch(serving.url!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    await expect(connect('not-the-token')).rejects.toMatchObject({ code: 401 });
  });

  it('lists run_<agent>, runs it with progress from the run events, and answers', async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['run_helper', 'run_triage']);
    expect(Object.keys(tools[0]!.inputSchema.properties ?? {})).toEqual(['prompt', 'session_id']);

    llm.push({ toolCalls: [{ name: 'add', args: { a: 20, b: 22 }, id: 'add' }] }, { text: 'It is 42.' });
    const progress: Progress[] = [];
    const result = await client.callTool(
      { name: 'run_helper', arguments: { prompt: 'What is 20 + 22?' } },
      undefined,
      {
        onprogress: (p) => progress.push(p),
      },
    );
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'It is 42.' }]);
    const workflowId = (result.structuredContent as { workflow_id: string }).workflow_id;
    expect(progress[0]?.message).toBe(`Run started: workflow ${workflowId}`);
    const messages = progress.map((p) => p.message);
    expect(messages).toContain('tool_completed: add completed (2 characters)');
    expect(messages.at(-1)).toMatch(/^run_completed: /);
    expect((await agents.getHandle(workflowId).result()).output).toBe('It is 42.');
  });

  it("declares a structured agent's schema as the tool's outputSchema and answers with structuredContent", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'run_triage')!;
    expect(tool.outputSchema?.properties?.output).toMatchObject({
      type: 'object',
      properties: { priority: { enum: ['low', 'high'] }, team: { type: 'string' } },
      required: ['priority', 'team'],
    });
    expect(tools.find((t) => t.name === 'run_helper')!.outputSchema?.properties?.output).toMatchObject({
      type: 'string',
    });

    triageLlm.push({ object: { priority: 'high', team: 'billing' } });
    const result = await client.callTool({ name: 'run_triage', arguments: { prompt: 'Invoices fail' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ output: { priority: 'high', team: 'billing' } });
    expect(result.content).toEqual([{ type: 'text', text: '{"priority":"high","team":"billing"}' }]);

    // An answer that never matches is a tool error naming what was wrong, also in a session.
    triageLlm.push({ object: { priority: 'urgent', team: 'billing' } });
    const failed = await client.callTool({
      name: 'run_triage',
      arguments: { prompt: 'Invoices fail again' },
    });
    expect(failed.isError).toBe(true);
    expect(JSON.stringify(failed.content)).toMatch(/output schema after 1 attempt\(s\) \(priority: /);
    triageLlm.push({ object: { priority: 'urgent', team: 'billing' } });
    const inSession = await client.callTool({
      name: 'run_triage',
      arguments: { prompt: 'And now?', session_id: `s-${randomUUID()}` },
    });
    expect(inSession.isError).toBe(true);
    expect(JSON.stringify(inSession.content)).toMatch(/output schema after 1 attempt/);
  });

  it('keeps the run going when the client disconnects; the first progress message names it', async () => {
    const client = await connect();
    llm.push({ text: 'Finished without you.', delayMs: 1_500 });
    let first: string | undefined;
    const disconnected = new Promise<void>((resolve) => {
      client
        .callTool({ name: 'run_helper', arguments: { prompt: 'Take your time.' } }, undefined, {
          onprogress: (p) => {
            if (first) return;
            first = p.message;
            void client.close().then(resolve);
          },
        })
        .catch(() => resolve());
    });
    await disconnected;
    const workflowId = /workflow (\S+)/.exec(first ?? '')?.[1];
    expect(workflowId).toMatch(/^agent-helper-/);
    expect((await agents.getHandle(workflowId!).result()).output).toBe('Finished without you.');
  });

  it('a call whose connection dropped resumes on a new connection of its session: what it missed, then the answer, once', async () => {
    const client = await connect();
    const { sessionId } = client.transport as StreamableHTTPClientTransport;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    llm.push({ text: 'Worth the wait.', delayMs: 1_000 });
    let lastEventId: string | undefined;
    const seen: string[] = [];
    // The call's stream drops after its first progress message (the client's connection is gone).
    const dropped = new Promise<void>((resolve) => {
      client
        .callTool({ name: 'run_helper', arguments: { prompt: 'Take a second.' } }, undefined, {
          onprogress: (p) => {
            seen.push(String(p.message));
            if (seen.length === 1) void client.transport!.close().then(resolve);
          },
          onresumptiontoken: (token) => (lastEventId = token),
        })
        .catch(() => resolve());
    });
    await dropped;
    expect(lastEventId).toBeDefined();
    // A new connection of the same session asks for the stream from the last event it had.
    const resumed = new StreamableHTTPClientTransport(new URL(serving.url!), {
      sessionId,
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    });
    const messages: Array<{
      id?: unknown;
      method?: string;
      params?: { message?: string };
      result?: unknown;
    }> = [];
    const answered = new Promise<void>((resolve) => {
      resumed.onmessage = (message) => {
        messages.push(message as (typeof messages)[number]);
        if ('result' in message) resolve();
      };
    });
    await resumed.start();
    // 409 until the server has seen the old connection close (as a client's reconnect backs off).
    for (let attempt = 1; ; attempt++) {
      try {
        await resumed.resumeStream(lastEventId!);
        break;
      } catch (error) {
        if (!/Conflict/.test(String(error)) || attempt === 50) throw error;
        await sleep(100);
      }
    }
    await answered;
    await resumed.close();
    const progress = messages
      .filter((m) => m.method === 'notifications/progress')
      .map((m) => m.params!.message);
    // Nothing twice: the first message came before the drop, the rest only after it.
    expect(progress).not.toContain(seen[0]);
    expect(progress.at(-1)).toMatch(/^run_completed:/);
    const results = messages.filter((m) => 'result' in m);
    expect(results).toHaveLength(1);
    expect(results[0]!.result).toMatchObject({ content: [{ type: 'text', text: 'Worth the wait.' }] });
  });

  it('keeps sessions apart: none without initialize (400), an unknown or ended one is 404, DELETE ends one', async () => {
    const headers = {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const noSession = await fetch(serving.url!, { method: 'POST', headers, body: list });
    expect(noSession.status).toBe(400);
    expect(await noSession.text()).toContain('open one with an initialize request');
    const client = await connect();
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId!;
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('run_helper');
    await transport.terminateSession();
    const ended = await fetch(serving.url!, {
      method: 'POST',
      headers: {
        ...headers,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': transport.protocolVersion!,
      },
      body: list,
    });
    expect(ended.status).toBe(404);
    expect(await ended.text()).toContain(`No session ${sessionId}`);
  });

  it('answers the MCP Inspector CLI: lists run_helper and runs it', async () => {
    const inspector = new URL('../../node_modules/.bin/mcp-inspector', import.meta.url).pathname;
    const inspect = (...args: string[]) =>
      promisify(execFile)(inspector, [
        '--cli',
        serving.url!,
        '--header',
        `Authorization: Bearer ${TOKEN}`,
        ...args,
      ]);
    const listed = JSON.parse((await inspect('--method', 'tools/list')).stdout) as {
      tools: Array<{ name: string }>;
    };
    expect(listed.tools.map((tool) => tool.name)).toEqual(['run_helper', 'run_triage']);
    llm.push({ text: 'Hello, Inspector.' });
    const called = JSON.parse(
      (await inspect('--method', 'tools/call', '--tool-name', 'run_helper', '--tool-arg', 'prompt=Say hello'))
        .stdout,
    ) as { content: Array<{ text: string }>; structuredContent: { workflow_id: string } };
    expect(called.content).toEqual([{ type: 'text', text: 'Hello, Inspector.' }]);
    expect(called.structuredContent.workflow_id).toMatch(/^agent-helper-/);
  });

  it('continues a chat session given session_id', async () => {
    const client = await connect();
    const sessionId = `mcp-${randomUUID()}`;
    llm.push({ text: 'Noted: blue.' }, { text: 'You said blue.' });
    const first = await client.callTool({
      name: 'run_helper',
      arguments: { prompt: 'My favourite colour is blue.', session_id: sessionId },
    });
    expect(first.structuredContent).toMatchObject({
      workflow_id: `chat-${sessionId}`,
      session_id: sessionId,
    });
    const second = await client.callTool({
      name: 'run_helper',
      arguments: { prompt: 'What did I say?', session_id: sessionId },
    });
    expect(second.content).toEqual([{ type: 'text', text: 'You said blue.' }]);
    const seen = JSON.stringify(llm.calls.at(-1)!.messages);
    expect(seen).toContain('My favourite colour is blue.');
    expect(seen).toContain('Noted: blue.');
  });

  it('serves over stdio when a client starts it as a process', async () => {
    const client = new McpClient({ name: 'serve-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [new URL('../fixtures/mcp-serve-stdio.ts', import.meta.url).pathname],
        env: {
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TASK_QUEUE: `mcp-stdio-${randomUUID()}`,
          WORKFLOW_BUNDLE: inject('workflowBundlePath'),
        },
        stderr: 'ignore',
      }),
    );
    clients.push(client);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['run_echo']);
    const result = await client.callTool({ name: 'run_echo', arguments: { prompt: 'hello over stdio' } });
    expect(result.content).toEqual([{ type: 'text', text: 'You said: hello over stdio' }]);
  });
});

describe('MCP sessions over Streamable HTTP', () => {
  it('closes a session nobody used for sessionIdleTimeoutMs: its id then answers 404', async () => {
    const sdk = await loadMcpServerSdk();
    const served = await serveHttp(sdk, () => new sdk.McpServer({ name: 'idle-test', version: '1.0.0' }), {
      port: 0,
      bearerToken: TOKEN,
      sessionIdleTimeoutMs: 200,
    });
    const client = new McpClient({ name: 'idle-test', version: '1.0.0' });
    try {
      const transport = new StreamableHTTPClientTransport(new URL(served.url!), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      });
      await client.connect(transport);
      await client.ping();
      const ping = () =>
        fetch(served.url!, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${TOKEN}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': transport.sessionId!,
            'mcp-protocol-version': transport.protocolVersion!,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
        });
      expect((await ping()).status).toBe(200);
      // The client goes away without ending its session (its event stream closes with it).
      await client.close();
      // Each check is a request, which keeps the session alive: checks come further apart than the timeout.
      let status = 200;
      for (let tries = 0; status === 200 && tries < 20; tries++) {
        await sleep(500);
        status = (await ping()).status;
      }
      expect(status).toBe(404);
    } finally {
      await client.close();
      await served.close();
    }
  });
});
