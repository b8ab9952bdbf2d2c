import { randomUUID } from 'node:crypto';
import { HttpAgent, type BaseEvent, type Interrupt, type Message, type ResumeEntry } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgUiHandler } from '../../src/ag-ui/handler.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { serveFetch } from '../support/fetch-server.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const user = (content: string): Message => ({ id: randomUUID(), role: 'user', content });

describe('createAgUiHandler: approvals as AG-UI interrupts', () => {
  let env: TestWorker;
  let server: { url: string; close(): Promise<void> };
  const add = new AddTool();
  beforeAll(async () => {
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
    });
    server = await serveFetch(createAgUiHandler({ client: env.agents, agent: 'calc' }));
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
});
