import { Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { json, startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { startBearerGate, startEverythingHttp, type EverythingHttp } from '../support/mcp-servers.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';

const CANARY = 'mcp-canary-5e1d7a90c3b2';
/** An OAuth access token the gate stopped accepting (revoked), though it has not expired. */
const REVOKED = 'mcp-revoked-token-41aa09';
const FRESH = 'mcp-fresh-token-77d2e1';
const FRESHER = 'mcp-fresher-token-0b3c55';
/** The tokens the gate accepts besides CANARY: the test revokes one mid-run. */
const accepted = new Set([FRESH]);
const WRONG = 'mcp-wrong-token-8c2f41';

describe('an agent with a Streamable HTTP MCP server (server-everything behind a bearer gate)', () => {
  let everything: EverythingHttp;
  let gate: RecordingServer;
  let tokenEndpoint: RecordingServer;
  const credentialStore = new InMemoryCredentialStore();
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
  const rotating = new ScriptedModel([
    () => {
      // Between the listing and the call, the server revokes the token the listing was refreshed to.
      accepted.delete(FRESH);
      accepted.add(FRESHER);
      return {
        toolCalls: [{ name: 'everything_echo', args: { message: 'refreshed' }, id: 'after-refresh' }],
      };
    },
    { text: 'Echoed after a refresh.' },
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
    gate = await startBearerGate(everything.url, (token) => token === CANARY || accepted.has(token));
    // The OAuth token endpoint of the `rotating` record: a refresh grant gets FRESH.
    tokenEndpoint = await startRecordingServer((request, response) => {
      const form = new URLSearchParams(request.body);
      const issued = { 'mcp-rt-1': [FRESH, 'mcp-rt-2'], 'mcp-rt-2': [FRESHER, 'mcp-rt-3'] }[
        String(form.get('refresh_token'))
      ];
      if (form.get('grant_type') !== 'refresh_token' || !issued)
        return json(response, 400, { error: 'invalid_grant' });
      json(response, 200, {
        access_token: issued[0],
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: issued[1],
      });
    });
    await credentialStore.put({
      name: 'rotating',
      type: 'oauth2',
      token: REVOKED,
      refresh_token: 'mcp-rt-1',
      metadata: {
        token_endpoint: `${tokenEndpoint.url}/token`,
        client_id: 'mcp-app',
        client_secret: 'mcp-app-secret',
        expires_at: new Date(Date.now() + 3_600_000).toISOString(), // looks valid for an hour
      },
    });
    await credentialStore.put({ name: 'everything', type: 'bearer', token: CANARY });
    await credentialStore.put({ name: 'wrong', type: 'bearer', token: WRONG });
    const server = { url: `${gate.url}/mcp`, credentialKey: 'everything' };
    env = await startTestWorker({
      // Its key is rate-limited: the calls of the server's tools run on the key's own queue.
      remote: {
        llm: remote,
        credentialStore,
        mcpServers: { everything: server },
        rateLimits: { everything: { perSecond: 50 } },
      },
      refused: {
        llm: refused,
        credentialStore,
        mcpServers: { everything: { ...server, credentialKey: 'wrong' } },
      },
      searching: { llm: searching, credentialStore, mcpServers: { everything: server }, toolSearch: true },
      rotating: {
        llm: rotating,
        credentialStore,
        mcpServers: { everything: { ...server, credentialKey: 'rotating' } },
      },
    });
  });
  afterAll(async () => {
    restoreLog();
    await env?.stop();
    await gate?.close();
    await tokenEndpoint?.close();
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
    const history = await handle.workflow.fetchHistory();
    const queues = history.events
      ?.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'invokeTool')
      .map((event) => event.activityTaskScheduledEventAttributes?.taskQueue?.name);
    expect(new Set(queues)).toEqual(new Set([`${env.taskQueue}@rate-limit:everything`]));

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
    // Said at the start of the run and in its metadata: the server is left out, and why (never the token).
    expect(events[1]).toMatchObject({
      type: 'warning',
      payload: { level: 'warning', unavailable_mcps: [{ server: 'everything' }] },
    });
    expect(events[1]!.message).toMatch(/MCP servers left out of this run: "everything" \(.*"wrong" \(401/);
    const result = await handle.result();
    expect(result.metadata.unavailable_mcps.map((mcp) => mcp.server)).toEqual(['everything']);
    expect(result.metadata.unavailable_mcps[0]!.reason).toMatch(
      /refused the credential "wrong" \(401 Unauthorized\)/,
    );
    const failed = events.find((e) => e.type === 'tool_failed');
    expect(failed?.payload.error_type).toBe('CredentialError');
    expect(String(failed?.payload.error)).toMatch(/refused the credential "wrong" \(401 Unauthorized\)/);
    // resolveRun left the server out of the run and said why, in the worker's log.
    expect(logged.join('\n')).toMatch(/MCP server "everything" are left out of this run: .*401/);
    expect(JSON.stringify(events) + (await historyText(handle.workflow)) + logged.join('\n')).not.toContain(
      WRONG,
    );
  });

  it('refreshes an OAuth token the server answers 401 to, once, and repeats the listing and the call', async () => {
    const handle = await env.agents.start('rotating', 'Echo after a refresh.');
    const events = await collect(handle.events());
    const result = await handle.result();
    expect(result.output).toBe('Echoed after a refresh.');
    expect(result.metadata.unavailable_mcps).toEqual([]);
    expect(events.some((e) => e.type === 'warning')).toBe(false);
    expect(events.find((e) => e.type === 'tool_completed')?.payload.output).toBe('Echo: refreshed');
    expect(rotating.calls[0]!.tools.map((t) => t.function.name)).toContain('everything_echo');
    expect(events.some((e) => e.type === 'tool_failed')).toBe(false);
    // One refresh for the listing (at the start) and one for the call (its token revoked meanwhile),
    // each followed by one repeat; the rotated tokens are stored.
    expect(tokenEndpoint.requests).toHaveLength(2);
    expect(await credentialStore.get('rotating')).toMatchObject({
      token: FRESHER,
      refresh_token: 'mcp-rt-3',
    });
    const sent = gate.requests.map((r) => String(r.headers.authorization));
    for (const token of [REVOKED, FRESH, FRESHER]) expect(sent).toContain(`Bearer ${token}`);
    const texts = JSON.stringify(events) + (await historyText(handle.workflow)) + logged.join('\n');
    for (const token of [REVOKED, FRESH, FRESHER, 'mcp-rt-1', 'mcp-rt-2', 'mcp-rt-3', 'mcp-app-secret'])
      expect(texts).not.toContain(token);
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
