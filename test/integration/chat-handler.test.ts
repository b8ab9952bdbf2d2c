import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { createChatHandler } from '../../src/ui-stream/chat-handler.ts';
import { serveFetch } from '../support/fetch-server.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';
import { writes } from '../support/writing-model.ts';

const STORY = Array.from({ length: 30 }, (_, i) => `w${i + 1} `).join('');

const user = (id: string, text: string): UIMessage => ({ id, role: 'user', parts: [{ type: 'text', text }] });

async function read(stream: ReadableStream<UIMessageChunk>, message?: UIMessage): Promise<UIMessage> {
  let last: UIMessage | undefined;
  for await (const m of readUIMessageStream({
    stream,
    ...(message ? { message } : {}),
    terminateOnError: true,
  })) {
    last = m;
  }
  return last!;
}
const textOf = (message: UIMessage) =>
  message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

describe('createChatHandler: an unmodified useChat transport over a durable chat session', () => {
  let env: TestWorker;
  let server: { url: string; close(): Promise<void> };
  let transport: DefaultChatTransport<UIMessage>;
  const llm = new ScriptedModel([
    { toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'a1' }] },
    { text: 'It is 5.' },
    { toolCalls: [{ name: 'add', args: { a: 1, b: 1 }, id: 'a2' }] },
    { text: 'Not adding then.' },
    writes(30, 60),
    writes(200, 50),
    { text: 'Hello again.' },
  ]);
  const lead = new ScriptedModel([
    { toolCalls: [{ name: 'agent_helper', args: { task: 'Add 4 and 4' }, id: 'call_1' }] },
    (request) => ({ text: `The helper says ${String(request.messages.at(-1)!.content)}` }),
  ]);
  const helper = new ScriptedModel([
    { toolCalls: [{ name: 'add', args: { a: 4, b: 4 }, id: 'call_1' }] },
    { text: '8' },
  ]);
  beforeAll(async () => {
    env = await startTestWorker({
      calc: { llm, tools: [new AddTool()], approval: { tools: ['add'] } },
      lead: { llm: lead, subAgents: { helper: 'helper' } },
      helper: { llm: helper, tools: [new AddTool()], approval: { tools: ['add'] } },
    });
    const calc = createChatHandler({ client: env.agents, agent: 'calc' });
    const leads = createChatHandler({ client: env.agents, agent: 'lead' });
    server = await serveFetch((request) =>
      new URL(request.url).pathname.startsWith('/api/lead') ? leads(request) : calc(request),
    );
    transport = new DefaultChatTransport({ api: `${server.url}/api/chat` });
  });
  afterAll(async () => {
    await server?.close();
    await env?.stop();
  });
  const send = (chatId: string, messages: UIMessage[]) =>
    transport.sendMessages({
      chatId,
      messages,
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });

  it('asks for approval as the AI SDK part, refuses a forged approval id, continues the same turn after approving, shows a rejection as output-denied', async () => {
    const chatId = `chat-${Date.now()}`;
    const first = user('u1', 'Add 2 and 3');
    const asking = await read(await send(chatId, [first]));
    const call = asking.parts.find((part) => part.type === 'dynamic-tool')!;
    expect(call).toMatchObject({ toolName: 'add', state: 'approval-requested', input: { a: 2, b: 3 } });
    const approvalId = (call as { approval: { id: string } }).approval.id;

    // A made-up approval id decides nothing and starts nothing.
    const forged: UIMessage = {
      ...asking,
      parts: asking.parts.map((part) =>
        part.type === 'dynamic-tool'
          ? ({
              ...part,
              state: 'approval-responded',
              approval: { id: 'call_forged', approved: true },
            } as typeof part)
          : part,
      ),
    };
    await expect(send(chatId, [first, forged])).rejects.toThrow(
      /No call of this chat waits for these approvals/,
    );
    expect(await env.agents.chatSession('calc', { sessionId: chatId }).pendingApprovals()).toHaveLength(1);

    const approved: UIMessage = {
      ...asking,
      parts: asking.parts.map((part) =>
        part.type === 'dynamic-tool'
          ? ({
              ...part,
              state: 'approval-responded',
              approval: { id: approvalId, approved: true },
            } as typeof part)
          : part,
      ),
    };
    const answered = await read(await send(chatId, [first, approved]), approved);
    expect(answered.id).toBe(asking.id);
    const tools = answered.parts.filter((part) => part.type === 'dynamic-tool');
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ state: 'output-available', output: '5' });
    expect(textOf(answered)).toBe('It is 5.');

    // The next message: a rejected call shows as output-denied, and the model hears why.
    const second = user('u2', 'Add 1 and 1');
    const asking2 = await read(await send(chatId, [first, answered, second]));
    const rejected: UIMessage = {
      ...asking2,
      parts: asking2.parts.map((part) =>
        part.type === 'dynamic-tool'
          ? ({
              ...part,
              state: 'approval-responded',
              approval: {
                id: (part as { approval: { id: string } }).approval.id,
                approved: false,
                reason: 'no',
              },
            } as typeof part)
          : part,
      ),
    };
    const denied = await read(await send(chatId, [first, answered, second, rejected]), rejected);
    expect(denied.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({
      state: 'output-denied',
    });
    expect(textOf(denied)).toBe('Not adding then.');
    const history = await env.agents
      .chatSession('calc', { sessionId: chatId, memoryStore: env.memoryStore })
      .history();
    expect(history.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([
      'Add 2 and 3',
      'Add 1 and 1',
    ]);
  });

  it("shows a sub-agent's call that waits for approval as a tool part of the answer, and approving it there continues the turn", async () => {
    const chatId = `sub-${Date.now()}`;
    const handler = new DefaultChatTransport({ api: `${server.url}/api/lead` });
    const ask = (messages: UIMessage[]) =>
      handler.sendMessages({
        chatId,
        messages,
        trigger: 'submit-message',
        messageId: undefined,
        abortSignal: undefined,
      });
    const first = user('u1', 'What is 4 + 4? Ask the helper.');
    const asking = await read(await ask([first]));
    const tools = asking.parts.filter((part) => part.type === 'dynamic-tool');
    expect(tools.map((part) => [part.toolName, part.state])).toEqual([
      ['agent_helper', 'input-available'],
      ['add', 'approval-requested'],
    ]);
    const waiting = tools[1] as { toolCallId: string; approval: { id: string } };
    // The same call id in parent and child: the child's part is told apart by its run.
    expect(waiting.approval.id).toMatch(/\/call_1#call_1$/);
    const approved: UIMessage = {
      ...asking,
      parts: asking.parts.map((part) =>
        part.type === 'dynamic-tool' && part.toolCallId === waiting.toolCallId
          ? ({
              ...part,
              state: 'approval-responded',
              approval: { id: waiting.approval.id, approved: true },
            } as typeof part)
          : part,
      ),
    };
    const answered = await read(await ask([first, approved]), approved);
    expect(
      answered.parts
        .filter((part) => part.type === 'dynamic-tool')
        .map((part) => [part.toolName, part.state, part.output]),
    ).toEqual([
      ['agent_helper', 'output-available', '8'],
      ['add', 'output-available', '8'],
    ]);
    expect(textOf(answered)).toBe('The helper says 8');
  });

  it('resumes the turn in progress from its start, once per reader (two at once), and answers 204 when none runs', async () => {
    const chatId = `resume-${Date.now()}`;
    const live = await send(chatId, [user('u1', 'Tell a story')]);
    const reader = live.getReader();
    // Some of the answer has arrived when the "page reloads".
    for (let deltas = 0; deltas < 5;) {
      const { value } = await reader.read();
      if (value?.type === 'text-delta') deltas++;
    }
    await reader.cancel();
    const [a, b] = await Promise.all([
      transport.reconnectToStream({ chatId }).then((stream) => read(stream!)),
      transport.reconnectToStream({ chatId }).then((stream) => read(stream!)),
    ]);
    for (const message of [a, b]) {
      expect(textOf(message)).toBe(STORY);
      expect(message.parts.filter((part) => part.type === 'text')).toHaveLength(1);
    }
    expect(a.id).toBe(b.id);
    expect(await transport.reconnectToStream({ chatId })).toBeNull();
  });

  it('stops the turn on the server with the stop route; the next message is answered', async () => {
    const chatId = `stop-${Date.now()}`;
    const reader = (await send(chatId, [user('u1', 'Write a lot')])).getReader();
    const chunks: UIMessageChunk[] = [];
    while (chunks.filter((c) => c.type === 'text-delta').length < 3)
      chunks.push((await reader.read()).value!);
    const stopped = await fetch(`${server.url}/api/chat/${chatId}/stop`, { method: 'POST' });
    expect(stopped.status).toBe(204);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'other' });
    const deltas = chunks.filter((c) => c.type === 'text-delta').length;
    expect(deltas).toBeGreaterThanOrEqual(3);
    expect(deltas).toBeLessThan(200);

    const again = await read(await send(chatId, [user('u2', 'Hello?')]));
    expect(textOf(again)).toBe('Hello again.');
    // The answer the stop cut off is kept in the session as far as the page saw it; the next turn follows it.
    const streamed = chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('');
    const session = env.agents.chatSession('calc', { sessionId: chatId, memoryStore: env.memoryStore });
    expect((await session.history()).map((m) => [m.role, m.content])).toEqual([
      ['user', 'Write a lot'],
      ['assistant', streamed],
      ['user', 'Hello?'],
      ['assistant', 'Hello again.'],
    ]);
    const nothing = await fetch(`${server.url}/api/chat/${chatId}/stop`, { method: 'POST' });
    expect(nothing.status).toBe(409);
    expect(((await nothing.json()) as { error: string }).error).toMatch(/refused/);
  });

  it('refuses what is not a chat request with a message saying what is expected', async () => {
    const bad = await fetch(`${server.url}/api/chat`, { method: 'POST', body: '{"messages":[]}' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'The chat request has no `id` (the chat id useChat sends).' });
    const route = await fetch(`${server.url}/api/chat/x/y`, { method: 'GET' });
    expect(route.status).toBe(404);
  });
});
