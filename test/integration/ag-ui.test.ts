import { randomUUID } from 'node:crypto';
import {
  HttpAgent,
  runHttpRequest,
  transformHttpEventStream,
  verifyEvents,
  type BaseEvent,
  type Message,
  type RunAgentInput,
} from '@ag-ui/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgUiHandler } from '../../src/ag-ui/handler.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { serveFetch } from '../support/fetch-server.ts';
import { historyText, startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool, TokenTool } from './tools.ts';
import { writes } from '../support/writing-model.ts';

const CANARY = 'sk-canary-ag-ui-41c9d7';

const STORY = Array.from({ length: 40 }, (_, i) => `w${i + 1} `).join('');

/** `HttpAgent` with `connectAgent`: a GET of the thread's running turn (the handler's route). */
class ThreadAgent extends HttpAgent {
  protected override connect(input: RunAgentInput) {
    return transformHttpEventStream(
      runHttpRequest(() =>
        this.fetch(`${this.url}/${encodeURIComponent(input.threadId)}`, {
          method: 'GET',
          headers: { ...this.headers, accept: 'text/event-stream' },
          signal: this.abortController.signal,
        }),
      ),
    );
  }
}

/** The events of a stream that the client's own verification lets through, all of them or its error. */
const verified = (events: ReturnType<typeof transformHttpEventStream>) =>
  new Promise<BaseEvent[]>((resolve, reject) => {
    const all: BaseEvent[] = [];
    events.pipe(verifyEvents()).subscribe({
      next: (event) => void all.push(event),
      error: reject,
      complete: () => resolve(all),
    });
  });

const user = (content: string): Message => ({ id: randomUUID(), role: 'user', content });
const textOf = (messages: Message[]) =>
  messages
    .filter((message) => message.role === 'assistant' && typeof message.content === 'string')
    .map((message) => message.content as string)
    .join('|');

describe('createAgUiHandler: the official AG-UI client over a durable chat session', () => {
  let env: TestWorker;
  let server: { url: string; close(): Promise<void> };
  const add = new AddTool();
  const calcModel = new ScriptedModel([
    { toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'a1' }] },
    { text: 'It is 5.' },
    (request) => ({ text: `You said: ${String(request.messages.at(-1)!.content)}` }),
    (request) => ({ text: `You said: ${String(request.messages.at(-1)!.content)}` }),
  ]);
  const storyModel = new ScriptedModel([writes(40, 60), writes(40, 60)]);
  const tokenModel = new ScriptedModel([
    { toolCalls: [{ name: 'token', args: {}, id: 't1' }] },
    { text: 'I read it.' },
  ]);
  beforeAll(async () => {
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'upstream', type: 'bearer', token: CANARY });
    env = await startTestWorker({
      calc: { llm: calcModel, tools: [add] },
      story: { llm: storyModel },
      keeper: { llm: tokenModel, tools: [new TokenTool()], credentialStore },
    });
    const handlers = Object.fromEntries(
      ['calc', 'story', 'keeper'].map((agent) => [agent, createAgUiHandler({ client: env.agents, agent })]),
    );
    server = await serveFetch((request) => {
      const agent = new URL(request.url).pathname.split('/')[2]!;
      return handlers[agent]!(request);
    });
  });
  afterAll(async () => {
    await server?.close();
    await env?.stop();
  });
  const agentOf = (name: string, threadId: string = randomUUID()) =>
    new ThreadAgent({ url: `${server.url}/ag-ui/${name}`, threadId });

  it('runs a turn with a tool and its answer, as events the client verifies', async () => {
    const agent = agentOf('calc');
    const events: BaseEvent[] = [];
    agent.addMessage(user('What is 2 + 3?'));
    const { newMessages } = await agent.runAgent({}, { onEvent: ({ event }) => void events.push(event) });

    const types = events.map((event) => event.type);
    expect(types[0]).toBe('RUN_STARTED');
    expect(types.at(-1)).toBe('RUN_FINISHED');
    expect(types).toEqual(
      expect.arrayContaining(['STEP_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_RESULT', 'TEXT_MESSAGE_CONTENT']),
    );
    expect(newMessages).toEqual([
      expect.objectContaining({ role: 'assistant', toolCalls: [expect.objectContaining({ id: 'a1' })] }),
      expect.objectContaining({ role: 'tool', toolCallId: 'a1', content: '5' }),
      expect.objectContaining({ role: 'assistant', content: 'It is 5.' }),
    ]);
    expect(add.ran).toEqual([{ a: 2, b: 3 }]);
    const finished = events.at(-1) as BaseEvent & { usage?: unknown[]; outcome?: unknown };
    expect(finished.outcome).toEqual({ type: 'success' });
    expect(finished.usage).toHaveLength(1);
    expect(finished.usage![0]).toHaveProperty('inputTokens');

    // A second run on the thread is the session's next turn: the model sees the first turn too.
    agent.addMessage(user('Thanks'));
    await agent.runAgent();
    expect(textOf(agent.messages)).toBe('It is 5.|You said: Thanks');
    const history = await env.agents
      .chatSession('calc', { sessionId: agent.threadId, memoryStore: env.memoryStore })
      .history();
    expect(history.filter((message) => message.role === 'user').map((message) => message.content)).toEqual([
      'What is 2 + 3?',
      'Thanks',
    ]);
  });

  it('lets a new client connect to a running turn and shows its answer once; an idle thread ends at once', async () => {
    const first = agentOf('story');
    first.addMessage(user('Tell me a story'));
    let wrote!: () => void;
    const writing = new Promise<void>((resolve) => (wrote = resolve));
    const running = first.runAgent({}, { onTextMessageContentEvent: () => wrote() });
    // A page that reloads mid-answer: a new client, the same thread, joins the turn.
    await writing;
    const second = agentOf('story', first.threadId);
    await second.connectAgent();
    await running;
    expect(textOf(second.messages)).toBe(STORY);
    expect(textOf(first.messages)).toBe(STORY);

    const idle = agentOf('story', first.threadId);
    await idle.connectAgent();
    expect(idle.messages).toEqual([]);
  });

  it('resumes a dropped stream after its Last-Event-ID with the rest, once', async () => {
    const threadId = randomUUID();
    const input = {
      threadId,
      runId: randomUUID(),
      messages: [user('Another story')],
      tools: [],
      context: [],
    };
    const response = await fetch(`${server.url}/ag-ui/story`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(input),
    });
    // Read until some text arrived, then drop the connection.
    const reader = response.body!.getReader();
    let raw = '';
    for (let reads = 0; reads < 500 && (raw.match(/TEXT_MESSAGE_CONTENT/g) ?? []).length < 5; reads++) {
      const read = (await reader.read()) as { done: boolean; value?: Uint8Array };
      if (read.done) break;
      raw += new TextDecoder().decode(read.value);
    }
    await reader.cancel();
    const frames = raw.split('\n\n').filter((frame) => frame.includes('data: '));
    const lastId = [...raw.matchAll(/^id: (.+)$/gm)].at(-1)![1]!;
    const before = frames
      .map(
        (frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as { type: string; delta?: string },
      )
      .filter((event) => event.type === 'TEXT_MESSAGE_CONTENT')
      .map((event) => event.delta)
      .join('');
    expect(before.length).toBeGreaterThan(0);
    expect(STORY.startsWith(before)).toBe(true);

    const rest = await verified(
      transformHttpEventStream(
        runHttpRequest(() =>
          fetch(`${server.url}/ag-ui/story/${threadId}`, { headers: { 'last-event-id': lastId } }),
        ),
      ),
    );
    const after = rest
      .filter((event) => (event.type as string) === 'TEXT_MESSAGE_CONTENT')
      .map((event) => (event as BaseEvent & { delta: string }).delta)
      .join('');
    expect(before + after).toBe(STORY);
    expect(rest.at(-1)!.type).toBe('RUN_FINISHED');
  });

  it('runs a run posted twice (a client that retried) once', async () => {
    const input = {
      threadId: randomUUID(),
      runId: randomUUID(),
      messages: [user('Echo this')],
      tools: [],
      context: [],
    };
    const post = () =>
      verified(
        transformHttpEventStream(
          runHttpRequest(() =>
            fetch(`${server.url}/ag-ui/calc`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
              body: JSON.stringify(input),
            }),
          ),
        ),
      );
    const first = await post();
    const calls = calcModel.calls.length;
    const again = await post();
    expect(calcModel.calls.length).toBe(calls);
    expect(first.at(-1)!.type).toBe('RUN_FINISHED');
    expect(again.at(-1)).toMatchObject({
      type: 'RUN_ERROR',
      message: expect.stringMatching(/new runId/) as unknown,
    });
  });

  it('keeps a secret a tool reads out of the stream and the history', async () => {
    const agent = agentOf('keeper');
    const raw: Array<Promise<string>> = [];
    agent.fetch = async (url, init) => {
      const response = await fetch(url, init);
      const [mine, theirs] = response.body!.tee();
      raw.push(new Response(mine).text());
      return new Response(theirs, response);
    };
    agent.addMessage(user('Read the token'));
    await agent.runAgent();
    const stream = (await Promise.all(raw)).join('');
    expect(stream).toContain('the token is [REDACTED]');
    expect(stream).not.toContain(CANARY);
    const workflow = env.client.workflow.getHandle(`chat-${agent.threadId}`);
    const history = await historyText(workflow);
    expect(history).toContain('token');
    expect(history).not.toContain(CANARY);
  });

  it('refuses a body that is not a RunAgentInput, naming what is wrong', async () => {
    const response = await fetch(`${server.url}/ag-ui/calc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ threadId: 't', messages: [] }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/RunAgentInput.*runId/);

    const agent = agentOf('calc');
    agent.addMessage(user('Where am I?'));
    const offered = agent.runAgent({
      tools: [{ name: 'where am I', description: 'Where the user is', parameters: { type: 'object' } }],
    });
    await expect(offered).rejects.toThrow(/HTTP 400.*where am I.* cannot be called by a model/);
  });
});
