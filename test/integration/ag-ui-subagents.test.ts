import { randomUUID } from 'node:crypto';
import { HttpAgent, type BaseEvent, type Message } from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgUiHandler } from '../../src/ag-ui/handler.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { serveFetch } from '../support/fetch-server.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const user = (content: string): Message => ({ id: randomUUID(), role: 'user', content });

describe('createAgUiHandler: reasoning, parallel approvals and sub-agents, as the client verifies them', () => {
  let env: TestWorker;
  let server: { url: string; close(): Promise<void> };
  const add = new AddTool();
  const helperAdd = new AddTool();
  beforeAll(async () => {
    env = await startTestWorker({
      calc: {
        llm: new ScriptedModel([
          {
            reasoning: 'Two sums, both need a yes.',
            toolCalls: [
              { name: 'add', args: { a: 1, b: 2 }, id: 'p1' },
              { name: 'add', args: { a: 3, b: 4 }, id: 'p2' },
            ],
          },
          { text: 'They are 3 and 7.' },
        ]),
        tools: [add],
        approval: { tools: ['add'] },
      },
      lead: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'agent_helper', args: { task: 'Add 4 and 4' }, id: 'call_1' }] },
          (request) => ({ text: `The helper says ${String(request.messages.at(-1)!.content)}` }),
        ]),
        subAgents: { helper: 'helper' },
      },
      helper: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'add', args: { a: 4, b: 4 }, id: 'call_1' }] },
          { text: '8' },
        ]),
        tools: [helperAdd],
        approval: { tools: ['add'] },
      },
    });
    const handlers = {
      calc: createAgUiHandler({ client: env.agents, agent: 'calc' }),
      lead: createAgUiHandler({ client: env.agents, agent: 'lead' }),
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

  it('says the reasoning, and ends with one interrupt per call waiting in the step; both approved run once each', async () => {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui/calc` });
    const events: BaseEvent[] = [];
    agent.addMessage(user('What are 1 + 2 and 3 + 4?'));
    await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['REASONING_START', 'REASONING_MESSAGE_CONTENT', 'REASONING_END']),
    );
    expect(agent.messages).toContainEqual(
      expect.objectContaining({ role: 'reasoning', content: 'Two sums, both need a yes.' }),
    );
    expect(agent.pendingInterrupts.map((interrupt) => interrupt.toolCallId).sort()).toEqual(['p1', 'p2']);

    const { newMessages } = await agent.runAgent({
      resume: agent.pendingInterrupts.map((interrupt) => ({
        interruptId: interrupt.id,
        status: 'resolved' as const,
        payload: { approved: true },
      })),
    });
    expect(add.ran).toEqual(
      expect.arrayContaining([
        { a: 1, b: 2 },
        { a: 3, b: 4 },
      ]),
    );
    expect(add.ran).toHaveLength(2);
    expect(newMessages.at(-1)).toMatchObject({ role: 'assistant', content: 'They are 3 and 7.' });
  });

  it('shows a sub-agent run as SUBAGENT_* events; its call waiting for approval is an interrupt of the run', async () => {
    const agent = new HttpAgent({ url: `${server.url}/ag-ui/lead` });
    const events: BaseEvent[] = [];
    agent.addMessage(user('What is 4 + 4? Ask the helper.'));
    await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });
    const started = events.find((event) => (event.type as string) === 'SUBAGENT_STARTED') as
      (BaseEvent & { subagentRunId: string; name: string }) | undefined;
    expect(started).toMatchObject({ name: 'helper' });
    const [interrupt] = agent.pendingInterrupts;
    expect(interrupt).toMatchObject({
      toolCallId: `${started!.subagentRunId}#call_1`,
      reason: 'tool_approval',
    });
    expect(events.at(-2)).toMatchObject({
      type: 'SUBAGENT_FINISHED',
      subagentRunId: started!.subagentRunId,
      outcome: { type: 'suspended', interruptIds: [interrupt!.id] },
    });

    const resumed: BaseEvent[] = [];
    const { newMessages } = await agent.runAgent(
      { resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true } }] },
      { onEvent: ({ event }) => void resumed.push(event) },
    );
    expect(helperAdd.ran).toEqual([{ a: 4, b: 4 }]);
    expect(resumed.map((event) => event.type)).toContain('SUBAGENT_FINISHED');
    expect(newMessages.at(-1)).toMatchObject({ role: 'assistant', content: 'The helper says 8' });
  });
});
