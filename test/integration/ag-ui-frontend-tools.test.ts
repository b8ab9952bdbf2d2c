import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpAgent, type BaseEvent, type Message, type Tool } from '@ag-ui/client';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAgUiHandler } from '../../src/ag-ui/handler.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { workflowSpanSinks } from '../../src/telemetry/workflow-span-sink.ts';
import { serveFetch } from '../support/fetch-server.ts';
import { historyText, startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const user = (content: string): Message => ({ id: randomUUID(), role: 'user', content });
const toolMessage = (toolCallId: string, content: string): Message => ({
  id: randomUUID(),
  role: 'tool',
  toolCallId,
  content,
});

/** The frontend tool the page offers: it knows where the user is. */
const LOCATION: Tool = {
  name: 'location',
  description: "The user's city, from the browser",
  parameters: { type: 'object', properties: { precision: { type: 'string' } } },
};
/** Another: the time on the user's clock (no parameters). */
const CLOCK: Tool = { name: 'clock', description: "The time on the user's clock" };

/** What the model was last told: the result it answers from. */
const lastContent = (request: ModelRequest) => String(request.messages.at(-1)!.content);

describe('createAgUiHandler: frontend tools (RunAgentInput.tools) on a durable chat turn', () => {
  let env: TestWorker;
  let server: { url: string; close(): Promise<void> };
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const model = new ScriptedModel([
    { toolCalls: [{ name: 'location', args: { precision: 'city' }, id: 'f1' }] },
    (request) => ({ text: `You are in ${lastContent(request)}.` }),
    { toolCalls: [{ name: 'location', args: {}, id: 'f2' }] },
    // Held until the test has sent the result again: the turn is still running then.
    async (request) => {
      await gate;
      return { text: `Weather in ${lastContent(request)}: sunny.` };
    },
    {
      toolCalls: [
        { name: 'location', args: {}, id: 'f3' },
        { name: 'clock', args: {}, id: 'f4' },
      ],
    },
    (request) => ({
      text: `In ${String(request.messages.at(-2)!.content)} it is ${lastContent(request)}.`,
    }),
  ]);

  beforeAll(async () => {
    env = await startTestWorker({ ui: { llm: model, tools: [new AddTool()] } });
    const handler = createAgUiHandler({ client: env.agents, agent: 'ui' });
    server = await serveFetch(handler);
  });
  afterAll(async () => {
    release();
    await server?.close();
    await env?.stop();
  });

  const url = () => `${server.url}/ag-ui`;
  /** A run posted by hand, as a client that sends its messages again would. */
  const post = (threadId: string, messages: Message[]) =>
    fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ threadId, runId: randomUUID(), messages, tools: [LOCATION], context: [] }),
    });
  const historyOf = (threadId: string) =>
    env.agents.chatSession('ui', { sessionId: threadId, memoryStore: env.memoryStore }).history();

  it("ends the run at the client's tool call; the result in the next run's messages continues the same turn", async () => {
    const agent = new HttpAgent({ url: url() });
    const finished: BaseEvent[] = [];
    agent.addMessage(user('Where am I?'));
    const first = await agent.runAgent(
      { tools: [LOCATION] },
      { onRunFinishedEvent: ({ event }) => void finished.push(event) },
    );
    // The model was offered the page's tool beside the agent's own.
    expect(model.calls[0]!.tools.map((tool) => tool.function.name)).toEqual(['add', 'location']);
    expect(first.newMessages).toEqual([
      expect.objectContaining({
        role: 'assistant',
        toolCalls: [
          expect.objectContaining({
            id: 'f1',
            function: { name: 'location', arguments: '{"precision":"city"}' },
          }),
        ],
      }),
    ]);
    expect(finished).toEqual([
      expect.objectContaining({ outcome: { type: 'success', pendingToolCallIds: ['f1'] } }),
    ]);

    // The page runs the tool and sends its result: the waiting turn goes on, and answers from it.
    agent.addMessage(toolMessage('f1', 'Lisbon'));
    const second = await agent.runAgent({ tools: [LOCATION] });
    expect(second.newMessages).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'You are in Lisbon.' }),
    ]);
    // One turn: one user message, the call's result stored once, the model asked twice.
    const history = await historyOf(agent.threadId);
    expect(history.filter((message) => message.role === 'user')).toHaveLength(1);
    expect(history.filter((message) => message.role === 'tool')).toEqual([
      expect.objectContaining({ content: 'Lisbon' }),
    ]);
    expect(model.calls).toHaveLength(2);

    // The result sent again after the turn ended is refused: nothing waits for it.
    const late = await post(agent.threadId, [toolMessage('f1', 'Lisbon')]);
    expect(late.status).toBe(409);
    expect(((await late.json()) as { error: string }).error).toMatch(/its turn has ended/);
  });

  it("fails the turn, naming it, when a frontend tool is named like one of the agent's tools", async () => {
    const agent = new HttpAgent({ url: url() });
    const errors: string[] = [];
    agent.addMessage(user('Add 1 and 2'));
    await agent
      .runAgent(
        { tools: [{ name: 'add', description: 'Adds on the page', parameters: { type: 'object' } }] },
        { onRunErrorEvent: ({ event }) => void errors.push(event.message) },
      )
      .catch(() => undefined);
    expect(errors).toEqual([expect.stringMatching(/frontend tools named like the agent's own \(add\)/)]);
    // The model was never asked.
    expect(model.calls).toHaveLength(2);
  });

  it('refuses a forged call id, and takes a result sent twice once', async () => {
    const agent = new HttpAgent({ url: url() });
    agent.addMessage(user('What is the weather here?'));
    await agent.runAgent({ tools: [LOCATION] });
    expect(model.calls).toHaveLength(3);

    // A call id the turn never made: refused, and the turn still waits for f2.
    const forged = await post(agent.threadId, [toolMessage('forged', 'Atlantis')]);
    expect(forged.status).toBe(409);
    expect(((await forged.json()) as { error: string }).error).toMatch(
      /"forged".*No frontend tool call "forged"/s,
    );

    agent.addMessage(toolMessage('f2', 'Porto'));
    const answered = agent.runAgent({ tools: [LOCATION] });
    // The model is asked with the result (and held there): the turn is running when it comes again.
    for (let i = 0; i < 600 && model.calls.length < 4; i++) await sleep(50);
    expect(model.calls).toHaveLength(4);
    const again = await post(agent.threadId, [toolMessage('f2', 'Porto')]);
    expect(again.status).toBe(200);
    release();
    const { newMessages } = await answered;
    expect(newMessages).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'Weather in Porto: sunny.' }),
    ]);
    // The copy reads the same continuation, and ran nothing again.
    expect(await again.text()).toContain('Weather in Porto: sunny.');
    expect(model.calls).toHaveLength(4);
    const history = await historyOf(agent.threadId);
    expect(history.filter((message) => message.role === 'tool')).toEqual([
      expect.objectContaining({ content: 'Porto' }),
    ]);
    expect(history.filter((message) => message.role === 'user')).toHaveLength(1);
    const workflow = env.client.workflow.getHandle(`chat-${agent.threadId}`);
    expect(await historyText(workflow)).not.toContain('Atlantis');
    // The wait and its result replay from history alone, as on a worker that takes over the session.
    await Worker.runReplayHistory(
      {
        workflowBundle: { codePath: inject('workflowBundlePath') },
        sinks: workflowSpanSinks(undefined, () => undefined),
      },
      await workflow.fetchHistory(),
    );
  });

  it('waits for every frontend call of a step; a new message or a partial answer meanwhile is refused', async () => {
    const agent = new HttpAgent({ url: url() });
    const finished: BaseEvent[] = [];
    agent.addMessage(user('Where am I, and what time is it?'));
    const first = await agent.runAgent(
      { tools: [LOCATION, CLOCK] },
      { onRunFinishedEvent: ({ event }) => void finished.push(event) },
    );
    expect(first.newMessages.flatMap((message) => ('toolCalls' in message ? message.toolCalls : []))).toEqual(
      [
        expect.objectContaining({ id: 'f3', function: { name: 'location', arguments: '{}' } }),
        expect.objectContaining({ id: 'f4', function: { name: 'clock', arguments: '{}' } }),
      ],
    );
    expect(finished).toEqual([
      expect.objectContaining({ outcome: { type: 'success', pendingToolCallIds: ['f3', 'f4'] } }),
    ]);

    const early = await post(agent.threadId, [user('Never mind')]);
    expect(early.status).toBe(409);
    expect(((await early.json()) as { error: string }).error).toMatch(/waits for the results of .*f3, f4/);
    const partial = await post(agent.threadId, [toolMessage('f3', 'Faro')]);
    expect(partial.status).toBe(400);
    expect(((await partial.json()) as { error: string }).error).toMatch(/results of f4 too/);

    agent.addMessages([toolMessage('f3', 'Faro'), toolMessage('f4', '09:15')]);
    const { newMessages } = await agent.runAgent({ tools: [LOCATION, CLOCK] });
    expect(newMessages).toEqual([
      expect.objectContaining({ role: 'assistant', content: 'In Faro it is 09:15.' }),
    ]);
    expect((await historyOf(agent.threadId)).filter((message) => message.role === 'user')).toHaveLength(1);
    model.assertAllStepsUsed();
  });
});
