import { randomUUID } from 'node:crypto';
import { HttpAgent, type BaseEvent, type Interrupt, type Message, type ResumeEntry } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgUiHandler } from '../../src/ag-ui/handler.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { DriveSuiteOAuthHelper } from '../../src/oauth/drive-suite.ts';
import { InMemoryOAuthStateStore } from '../../src/oauth/state-store.ts';
import { serveFetch } from '../support/fetch-server.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool, LockedInboxTool } from './tools.ts';

const user = (content: string): Message => ({ id: randomUUID(), role: 'user', content });

describe('createAgUiHandler: approvals and authorization waits as AG-UI interrupts', () => {
  let env: TestWorker;
  let server: { url: string; close(): Promise<void> };
  const add = new AddTool();
  const credentialStore = new InMemoryCredentialStore();
  beforeAll(async () => {
    const mailHelper = new DriveSuiteOAuthHelper({
      config: {
        client_id: 'ag-ui-app',
        client_secret: 'ag-ui-secret',
        redirect_uri: 'http://127.0.0.1:1/oauth/callback',
        scopes: ['gmail.readonly'],
      },
      services: ['mail'],
      credentialStore,
      stateStore: new InMemoryOAuthStateStore(),
      // Only the URL is made: nobody answers there (the test stores the grant itself).
      endpoints: {
        authorization_endpoint: 'http://127.0.0.1:1/authorize',
        token_endpoint: 'http://127.0.0.1:1/token',
      },
    });
    env = await startTestWorker({
      calc: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'a1' }] },
          { text: 'It is 5.' },
          { toolCalls: [{ name: 'add', args: { a: 1, b: 1 }, id: 'a2' }] },
          { text: 'Not adding then.' },
        ]),
        tools: [add],
        approval: { tools: ['add'] },
      },
      mail: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'inbox', args: {}, id: 'm1' }] },
          (request) => ({ text: `The inbox says: ${String(request.messages.at(-1)!.content)}` }),
        ]),
        tools: [new LockedInboxTool()],
        credentialStore,
        // The wait looks in the store every second: the grant the test stores is found there.
        authorization: { helpers: { mail: mailHelper }, checkEveryMs: 1000 },
      },
    });
    const handlers = {
      calc: createAgUiHandler({ client: env.agents, agent: 'calc' }),
      mail: createAgUiHandler({ client: env.agents, agent: 'mail' }),
    };
    server = await serveFetch((request) => {
      const agent = new URL(request.url).pathname.split('/')[2] as keyof typeof handlers;
      return handlers[agent](request);
    });
  });
  afterAll(async () => {
    await server?.close();
    await env?.stop();
  });

  /** A run of `threadId` posted by hand (a client that does not hold the interrupts). */
  const post = (agent: string, threadId: string, resume: ResumeEntry[]) =>
    fetch(`${server.url}/ag-ui/${agent}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ threadId, runId: randomUUID(), messages: [], tools: [], context: [], resume }),
    });

  it('ends the run with an interrupt per waiting call; resumed approved, the call runs once in the same turn', async () => {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui/calc` });
    const finished: BaseEvent[] = [];
    agent.addMessage(user('What is 2 + 3?'));
    await agent.runAgent({}, { onRunFinishedEvent: ({ event }) => void finished.push(event) });
    expect(agent.pendingInterrupts).toEqual([
      expect.objectContaining({ id: 'approval:a1', toolCallId: 'a1', reason: 'tool_approval' }),
    ]);
    expect(add.ran).toEqual([]);

    // An interrupt this thread never asked is refused, and decides nothing.
    const forged = await post('calc', agent.threadId, [
      { interruptId: 'approval:forged', status: 'resolved', payload: { approved: true } },
    ]);
    expect(forged.status).toBe(409);
    expect(((await forged.json()) as { error: string }).error).toMatch(/approval:forged/);

    const interrupt = agent.pendingInterrupts[0]!;
    const { newMessages } = await agent.runAgent({
      resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
    });
    expect(newMessages).toEqual([
      expect.objectContaining({ role: 'tool', toolCallId: 'a1', content: '5' }),
      expect.objectContaining({ role: 'assistant', content: 'It is 5.' }),
    ]);
    expect(add.ran).toEqual([{ a: 2, b: 3 }]);
    expect(agent.pendingInterrupts).toEqual([]);

    // The same interrupt again is stale: refused, and the call does not run again.
    const stale = await post('calc', agent.threadId, [
      { interruptId: interrupt.id, status: 'resolved', payload: { approved: true } },
    ]);
    expect(stale.status).toBe(409);
    expect(add.ran).toHaveLength(1);
    // The resume continued the turn: the session holds one user message, one turn.
    const history = await env.agents
      .chatSession('calc', { sessionId: agent.threadId, memoryStore: env.memoryStore })
      .history();
    expect(history.filter((message) => message.role === 'user')).toHaveLength(1);
  });

  it('declines the call when the resume says approved: false, with its reason', async () => {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui/calc` });
    agent.addMessage(user('What is 1 + 1?'));
    await agent.runAgent();
    const [interrupt] = agent.pendingInterrupts as [Interrupt];
    expect(interrupt).toMatchObject({ id: 'approval:a2', toolCallId: 'a2' });
    const { newMessages } = await agent.runAgent({
      resume: [
        { interruptId: interrupt.id, status: 'resolved', payload: { approved: false, reason: 'not now' } },
      ],
    });
    expect(newMessages).toEqual([
      expect.objectContaining({ role: 'tool', toolCallId: 'a2', content: 'Declined: not now' }),
      expect.objectContaining({ role: 'assistant', content: 'Not adding then.' }),
    ]);
    expect(add.ran).toEqual([{ a: 2, b: 3 }]);
  });

  it('ends the run with an authorization interrupt naming the URL; resumed once granted, the call runs', async () => {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui/mail` });
    agent.addMessage(user('Any mail?'));
    await agent.runAgent();
    expect(agent.pendingInterrupts).toEqual([
      expect.objectContaining({
        id: 'authorization:m1',
        reason: 'authorization',
        toolCallId: 'm1',
      }),
    ]);
    const [{ metadata }] = agent.pendingInterrupts as [Interrupt];
    expect(metadata?.tool).toBe('inbox');
    expect(String(metadata?.url)).toMatch(/^http:\/\/127\.0\.0\.1:1\/authorize\?/);
    const cancelled = await post('mail', agent.threadId, [
      { interruptId: 'authorization:m1', status: 'cancelled' },
    ]);
    expect(cancelled.status).toBe(400);
    expect(((await cancelled.json()) as { error: string }).error).toMatch(/grant access at its URL/);

    // The user grants access (here: the token is stored), and the client resumes the interrupt.
    await credentialStore.put({ name: 'mail', type: 'bearer', token: 'granted-token' });
    const { newMessages } = await agent.runAgent({
      resume: [{ interruptId: 'authorization:m1', status: 'resolved' }],
    });
    expect(newMessages).toEqual([
      expect.objectContaining({ role: 'tool', toolCallId: 'm1', content: 'no new mail' }),
      expect.objectContaining({ role: 'assistant', content: 'The inbox says: no new mail' }),
    ]);
  });
});
