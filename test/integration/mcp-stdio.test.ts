import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { AddTool } from './tools.ts';
import { EVERYTHING_SERVER, pidsWith } from '../support/mcp-servers.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

/** server-everything over stdio, marked so the test can find (and kill) its process. */
const marker = `--toolkit-test=${randomUUID()}`;
const everything = { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio', marker] };

async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  if (!check()) throw new Error(`Timed out waiting for ${what}`);
}

describe('an agent with a stdio MCP server (server-everything)', () => {
  const llm = new ScriptedModel([
    {
      toolCalls: [
        { name: 'everything_get-sum', args: { a: 2, b: 40 }, id: 'sum' },
        { name: 'everything_get-tiny-image', args: {}, id: 'image' },
        { name: 'everything_get-structured-content', args: { location: 'Chicago' }, id: 'weather' },
        { name: 'everything_gzip-file-as-resource', args: { data: 'ftp://example.com/a.txt' }, id: 'bad' },
        { name: 'everything_get-sum', args: { a: 'two' }, id: 'invalid' },
      ],
    },
    { text: 'The sum is 42.' },
    // The second run, after the server process was killed.
    { toolCalls: [{ name: 'everything_echo', args: { message: 'still here' }, id: 'echo' }] },
    { text: 'Echoed.' },
  ]);
  let env: TestWorker;
  let listed: Awaited<ReturnType<Client['listTools']>>['tools'];

  beforeAll(async () => {
    // What the server itself lists, read with the SDK's own client, to compare with what the model gets.
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StdioClientTransport({ ...everything, args: [EVERYTHING_SERVER, 'stdio'], stderr: 'ignore' }),
    );
    listed = (await client.listTools()).tools;
    await client.close();
    env = await startTestWorker({
      mcp: { llm, tools: [new AddTool()], mcpServers: { everything } },
    });
  });
  let stopped = false;
  afterAll(async () => {
    if (!stopped) await env?.stop();
  });

  it('lists the tools inside an activity and passes descriptions and schemas through unchanged', async () => {
    const handle = await env.agents.start('mcp', 'Add 2 and 40, and show me things.');
    const events = await collect(handle.events());
    const result = await handle.result();
    expect(result.output).toBe('The sum is 42.');

    const offered = llm.calls[0]!.tools;
    expect(offered[0]!.function.name).toBe('add');
    const echo = listed.find((tool) => tool.name === 'echo')!;
    expect(offered.find((tool) => tool.function.name === 'everything_echo')?.function).toEqual({
      name: 'everything_echo',
      description: echo.description,
      parameters: echo.inputSchema,
    });
    expect(offered.length).toBeGreaterThanOrEqual(listed.length); // plus `add`; conditional tools may join later

    const completed = (id: string) =>
      events.find((e) => e.type === 'tool_completed' && e.payload.call_id === id)?.payload;
    const failed = (id: string) =>
      events.find((e) => e.type === 'tool_failed' && e.payload.call_id === id)?.payload;
    expect(completed('sum')?.output).toBe('The sum of 2 and 40 is 42.');
    expect(completed('image')?.output).toMatch(/\[image: image\/png, \d+ bytes\]/);
    expect(completed('weather')?.metadata).toMatchObject({
      mcp_server: 'everything',
      mcp_tool: 'get-structured-content',
      structuredContent: {
        conditions: expect.any(String) as unknown,
        temperature: expect.any(Number) as unknown,
      },
    });
    // isError from the server: tool_failed with the server's own text.
    expect(failed('bad')).toMatchObject({ error_type: 'McpToolError' });
    expect(String(failed('bad')?.error)).toMatch(/Unsupported URL protocol/);
    // Arguments that do not match the input schema never reach the server.
    expect(failed('invalid')).toMatchObject({ error_type: 'ToolInputError' });
    expect(String(failed('invalid')?.error)).toMatch(/Invalid arguments for everything_get-sum/);
  });

  it('starts the server again when its process died between two calls', async () => {
    const [pid] = pidsWith(marker);
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    await waitFor(() => pidsWith(marker).length === 0, 'the killed server to exit');

    const handle = await env.agents.start('mcp', 'Echo something.');
    const events = await collect(handle.events());
    expect((await handle.result()).output).toBe('Echoed.');
    expect(events.find((e) => e.type === 'tool_completed')?.payload.output).toBe('Echo: still here');
    const [restarted] = pidsWith(marker);
    expect(restarted).toBeDefined();
    expect(restarted).not.toBe(pid);
  });

  it('stops the server process when the worker stops', async () => {
    stopped = true;
    await env.stop();
    await waitFor(() => pidsWith(marker).length === 0, 'the server to stop with the worker');
  });
});
