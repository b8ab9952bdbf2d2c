import { Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import type { RecordingServer } from '../support/http-server.ts';
import { startBearerGate, startEverythingHttp, type EverythingHttp } from '../support/mcp-servers.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';

const CANARY = 'mcp-canary-5e1d7a90c3b2';
const WRONG = 'mcp-wrong-token-8c2f41';

describe('an agent with a Streamable HTTP MCP server (server-everything behind a bearer gate)', () => {
  let everything: EverythingHttp;
  let gate: RecordingServer;
  let env: TestWorker;
  const logged: string[] = [];
  let restoreLog: () => void = () => undefined;
  const remote = new ScriptedModel([
    { toolCalls: [{ name: 'everything_get-sum', args: { a: 20, b: 22 }, id: 'first' }] },
    { toolCalls: [{ name: 'everything_echo', args: { message: 'again' }, id: 'second' }] },
    { text: 'Done.' },
    { toolCalls: [{ name: 'everything_echo', args: { message: 'third' }, id: 'third' }] },
    { text: 'Done again.' },
  ]);
  const refused = new ScriptedModel([
    { toolCalls: [{ name: 'everything_echo', args: { message: 'hi' }, id: 'refused' }] },
    { text: 'No access.' },
  ]);
  const searching = new ScriptedModel([
    { toolCalls: [{ name: 'tool_search', args: { query: 'sum of two numbers' }, id: 'search' }] },
    { toolCalls: [{ name: 'everything_get-sum', args: { a: 1, b: 2 }, id: 'found' }] },
    { text: '3' },
  ]);

  beforeAll(async () => {
    // Everything the worker logs, at every level, to scan for the token afterwards.
    const logger = Runtime.instance().logger;
    const original = logger.log.bind(logger);
    logger.log = (level, message, meta) => {
      logged.push(`${level} ${message} ${JSON.stringify(meta ?? {})}`);
      original(level, message, meta);
    };
    restoreLog = () => (logger.log = original);

    everything = await startEverythingHttp();
    gate = await startBearerGate(everything.url, CANARY);
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'everything', type: 'bearer', token: CANARY });
    await credentialStore.put({ name: 'wrong', type: 'bearer', token: WRONG });
    const server = { url: `${gate.url}/mcp`, credentialKey: 'everything' };
    env = await startTestWorker({
      remote: { llm: remote, credentialStore, mcpServers: { everything: server } },
      refused: {
        llm: refused,
        credentialStore,
        mcpServers: { everything: { ...server, credentialKey: 'wrong' } },
      },
      searching: { llm: searching, credentialStore, mcpServers: { everything: server }, toolSearch: true },
    });
  });
  afterAll(async () => {
    restoreLog();
    await env?.stop();
    await gate?.close();
    await everything?.stop();
  });

  it('lists and calls the tools with the stored bearer token, reusing one session, and the token appears nowhere', async () => {
    const handle = await env.agents.start('remote', 'Add 20 and 22, then echo.');
    const events = await collect(handle.events());
    expect((await handle.result()).output).toBe('Done.');
    const second = await env.agents.start('remote', 'Echo once more.');
    const secondEvents = await collect(second.events());
    await second.result();

    const completed = [...events, ...secondEvents].filter((e) => e.type === 'tool_completed');
    expect(completed.map((e) => e.payload.output)).toEqual([
      'The sum of 20 and 22 is 42.',
      'Echo: again',
      'Echo: third',
    ]);
    expect(remote.calls[0]!.tools.map((t) => t.function.name)).toContain('everything_echo');
    // The server really received the token, and one session served both runs.
    const mcpRequests = gate.requests.filter((r) => r.headers.authorization === `Bearer ${CANARY}`);
    expect(mcpRequests.length).toBeGreaterThanOrEqual(4);
    expect(everything.output().match(/Session initialized with ID/g)).toHaveLength(1);

    const texts = [
      await historyText(handle.workflow),
      await historyText(second.workflow),
      JSON.stringify([...events, ...secondEvents]),
      JSON.stringify(await env.memoryStore.read(handle.workflowId)),
      logged.join('\n'),
    ];
    expect(texts[0]).toContain('everything_get-sum'); // the scan reads decoded payloads
    for (const text of texts) expect(text).not.toContain(CANARY);
  });

  it('reports a 401 from the server as a CredentialError that names the credential', async () => {
    const handle = await env.agents.start('refused', 'Say hi.');
    const events = await collect(handle.events());
    await handle.result();
    const failed = events.find((e) => e.type === 'tool_failed');
    expect(failed?.payload.error_type).toBe('CredentialError');
    expect(String(failed?.payload.error)).toMatch(/refused the credential "wrong" \(401 Unauthorized\)/);
    // resolveRun left the server out of the run and said why, in the worker's log.
    expect(logged.join('\n')).toMatch(/MCP server "everything" are left out of this run: .*401/);
    expect(JSON.stringify(events) + (await historyText(handle.workflow)) + logged.join('\n')).not.toContain(
      WRONG,
    );
  });

  it('lets tool_search find MCP tools with the agent’s own', async () => {
    const handle = await env.agents.start('searching', 'What is 1 + 2?');
    const events = await collect(handle.events());
    expect((await handle.result()).output).toBe('3');
    expect(searching.calls[0]!.tools.map((t) => t.function.name)).toEqual(['tool_search']);
    const found = events.find((e) => e.type === 'tool_completed' && e.payload.call_id === 'search');
    expect((found?.payload.metadata as { matches?: string[] } | undefined)?.matches).toContain(
      'everything_get-sum',
    );
    expect(searching.calls[1]!.tools.map((t) => t.function.name)).toContain('everything_get-sum');
    expect(
      events.find((e) => e.payload.call_id === 'found' && e.type === 'tool_completed')?.payload.output,
    ).toBe('The sum of 1 and 2 is 3.');
  });
});
