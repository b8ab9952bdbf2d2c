import { randomUUID } from 'node:crypto';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { serveA2a, type A2aServing } from '../../src/a2a/serve.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { a2aClient as baseClient, artifactTexts, userMessage } from '../support/a2a-client.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { queuedModel } from '../support/queued-model.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const TOKEN = `a2a-serve-token-${randomUUID()}`;

const a2aClient = (agentUrl: string, token = TOKEN): Promise<Client> => baseClient(agentUrl, token);
const message = userMessage;
const textOf = artifactTexts;

function asTask(result: unknown): Task {
  expect(result).toHaveProperty('status');
  return result as Task;
}

/** The states of a stream's task and status events, in order. */
function states(events: StreamResponse[]): TaskState[] {
  return events.flatMap((event) =>
    event.payload?.$case === 'task'
      ? [event.payload.value.status!.state]
      : event.payload?.$case === 'statusUpdate'
        ? [event.payload.value.status!.state]
        : [],
  );
}

async function waitForState(client: Client, id: string, state: TaskState): Promise<Task> {
  for (let i = 0; i < 100; i++) {
    const task = await client.getTask({ tenant: '', id });
    if (task.status?.state === state) return task;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Task ${id} never reached state ${state}.`);
}

describe('serveA2a: our agents to clients of the A2A SDK', () => {
  const llm = queuedModel();
  const guardedLlm = queuedModel();
  const triageLlm = queuedModel();
  const add = new AddTool();
  const guardedAdd = new AddTool({ needsApproval: true });
  // Answers with every user message of the conversation so far.
  const chattyLlm = new ScriptedModel(
    Array.from({ length: 10 }, () => (request: ModelRequest) => ({
      text: `You said: ${request.messages
        .filter((m) => m.role === 'user')
        .map((m) => m.content)
        .join(' | ')}`,
    })),
  );
  const Triage = z.object({ priority: z.enum(['low', 'high']), team: z.string() });
  const definitions = {
    helper: { llm, tools: [add], systemPrompt: 'Adds numbers for you.\nBe brief.', autoProjectSkills: false },
    guarded: { llm: guardedLlm, tools: [guardedAdd], autoProjectSkills: false },
    triage: { llm: triageLlm, output: Triage, outputRepairs: 0, autoProjectSkills: false },
    chatty: { llm: chattyLlm, autoProjectSkills: false },
    echo: {
      llm: new ScriptedModel(Array.from({ length: 80 }, () => ({ text: 'ok' }))),
      autoProjectSkills: false,
    },
  };
  let worker: TestWorker;
  let serving: A2aServing;

  beforeAll(async () => {
    worker = await startTestWorker(definitions);
    serving = await serveA2a({
      agents: definitions,
      client: worker.agents,
      transport: { port: 0, bearerToken: TOKEN },
    });
  });
  afterAll(async () => {
    await serving?.close();
    await worker?.stop();
  });

  it('publishes a card per agent with its description, tools as skills, streaming and bearer auth', async () => {
    const client = await a2aClient(serving.agentUrls.helper!);
    const card = await client.getAgentCard();
    expect(card.name).toBe('helper');
    expect(card.description).toBe('Adds numbers for you.');
    expect(card.supportedInterfaces[0]).toMatchObject({
      url: serving.agentUrls.helper!.slice(0, -1),
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
    });
    expect(card.skills.map((skill) => [skill.id, skill.description])).toEqual([
      ['tool:add', 'Adds two numbers'],
    ]);
    expect(card.capabilities?.streaming).toBe(true);
    expect(Object.keys(card.securitySchemes)).toEqual(['bearer']);
  });

  it('refuses a request without the right bearer token with 401', async () => {
    const response = await fetch(serving.agentUrls.helper!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-token-wrong-token' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await a2aClient(serving.agentUrls.helper!, 'not-the-token-at-all');
    await expect(wrong.sendMessage(message('What is 1 + 1?'))).rejects.toThrow(/401|Unauthorized/);
    expect(add.ran).toEqual([]);
  });

  it('with authorize instead of a token: who it lets in and the tenant their runs get', async () => {
    const keys: Record<string, string> = { [`key-${TOKEN}`]: 'acme' };
    const guarded = await serveA2a({
      agents: definitions,
      client: worker.agents,
      transport: {
        port: 0,
        authorize: (request) => {
          const tenant = keys[String(request.headers.authorization).replace(/^Bearer /, '')];
          return tenant ? { tenant } : undefined;
        },
      },
    });
    try {
      const outsider = await a2aClient(guarded.agentUrls.helper!, TOKEN);
      await expect(outsider.sendMessage(message('Hi'))).rejects.toThrow(/401|Unauthorized/);
      const client = await a2aClient(guarded.agentUrls.helper!, `key-${TOKEN}`);
      llm.push({ text: 'Hello, acme.' });
      const task = asTask(await client.sendMessage(message('Hi')));
      expect(textOf(task)).toEqual(['Hello, acme.']);
      expect((await worker.agents.getHandle(task.id).workflow.describe()).memo).toMatchObject({
        agent: 'helper',
        tenant: 'acme',
      });
    } finally {
      await guarded.close();
    }
  });

  it('message/send blocks until the run ends and answers with the task; the same message again is the same task', async () => {
    const client = await a2aClient(serving.agentUrls.helper!);
    llm.push({ toolCalls: [{ name: 'add', args: { a: 20, b: 22 }, id: 'add' }] }, { text: 'It is 42.' });
    const messageId = randomUUID();
    const task = asTask(await client.sendMessage(message('What is 20 + 22?', { messageId })));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(task)).toEqual(['It is 42.']);
    expect(task.id).toBe(`a2a~helper~${messageId}`);
    expect((await worker.agents.getHandle(task.id).result()).output).toBe('It is 42.');

    const again = asTask(await client.sendMessage(message('What is 20 + 22?', { messageId })));
    expect(again.id).toBe(task.id);
    expect(textOf(again)).toEqual(['It is 42.']);
    expect(add.ran).toEqual([{ a: 20, b: 22 }]);

    const fetched = await client.getTask({ tenant: '', id: task.id });
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(fetched)).toEqual(['It is 42.']);
    await expect(client.getTask({ tenant: '', id: 'a2a~helper~no-such-task' })).rejects.toThrow(/No task/);
  });

  it("the tasks of a client's context are turns of one chat session: each sees the ones before", async () => {
    const client = await a2aClient(serving.agentUrls.chatty!);
    const contextId = randomUUID();
    const firstId = randomUUID();
    const first = asTask(
      await client.sendMessage(message('My name is Ada.', { contextId, messageId: firstId })),
    );
    const second = asTask(await client.sendMessage(message('What is my name?', { contextId })));
    expect([first.contextId, second.contextId]).toEqual([contextId, contextId]);
    expect(second.id).not.toBe(first.id);
    expect([textOf(first), textOf(second)]).toEqual([
      ['You said: My name is Ada.'],
      ['You said: My name is Ada. | What is my name?'],
    ]);
    const fetched = await client.getTask({ tenant: '', id: first.id });
    expect([fetched.contextId, textOf(fetched)]).toEqual([contextId, ['You said: My name is Ada.']]);
    // The same message again is the same turn: the session does not answer it twice.
    const again = asTask(
      await client.sendMessage(message('My name is Ada.', { contextId, messageId: firstId })),
    );
    expect([again.id, textOf(again)]).toEqual([first.id, ['You said: My name is Ada.']]);
    expect(chattyLlm.calls).toHaveLength(2);
  });

  it("tasks/list pages through a context's tasks and an agent's; a turn from before the session continued as new reads as it ended", async () => {
    const client = await a2aClient(serving.agentUrls.echo!);
    const contextId = randomUUID();
    const session = worker.agents.client.workflow.getHandle(`chat-a2a.echo.${contextId}`);
    const first = asTask(await client.sendMessage(message('turn 1', { contextId })));
    const firstRun = (await session.describe()).runId;
    const ids = [first.id];
    // Turns until the session has continued as new (Temporal suggests it past 200 history events).
    while ((await session.describe()).runId === firstRun && ids.length < 60) {
      ids.push(asTask(await client.sendMessage(message(`turn ${ids.length + 1}`, { contextId }))).id);
    }
    expect((await session.describe()).runId).not.toBe(firstRun);
    const before = await client.getTask({ tenant: '', id: first.id });
    expect([before.status?.state, textOf(before)]).toEqual([TaskState.TASK_STATE_COMPLETED, ['ok']]);

    const list = (request: { contextId?: string; pageSize?: number; pageToken?: string }) =>
      client.listTasks({
        tenant: '',
        contextId: '',
        pageToken: '',
        statusTimestampAfter: undefined,
        ...request,
      } as never);
    const page = await list({ contextId, pageSize: 2 });
    expect(page.tasks.map((task) => task.id)).toEqual(ids.slice(-2).reverse());
    expect(page.totalSize).toBe(ids.length);
    let listed = page.tasks;
    for (let token = page.nextPageToken; token;) {
      const next = await list({ contextId, pageSize: 10, pageToken: token });
      listed = [...listed, ...next.tasks];
      token = next.nextPageToken;
    }
    expect(listed.map((task) => task.id)).toEqual([...ids].reverse());
    expect(new Set(listed.map((task) => task.status?.state))).toEqual(
      new Set([TaskState.TASK_STATE_COMPLETED]),
    );

    // The agent's tasks in contexts of their own: its runs, from visibility.
    const own = asTask(await client.sendMessage(message('on its own')));
    let runs: Task[] = [];
    for (let attempt = 0; attempt < 50 && !runs.some((task) => task.id === own.id); attempt++) {
      runs = (await list({ pageSize: 100 })).tasks;
      if (!runs.some((task) => task.id === own.id)) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(runs.map((task) => [task.id, task.contextId, task.status?.state])).toEqual([
      [own.id, own.id, TaskState.TASK_STATE_COMPLETED],
    ]);
    await expect(list({ pageSize: 500 })).rejects.toThrow(/pageSize must be a whole number from 1 to 100/);
  });

  it('message/send with returnImmediately answers at once; tasks/get follows the run to its end', async () => {
    const client = await a2aClient(serving.agentUrls.helper!);
    llm.push({ text: 'Done slowly.', delayMs: 1_500 });
    const task = asTask(await client.sendMessage(message('Take your time', { returnImmediately: true })));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const done = await waitForState(client, task.id, TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done)).toEqual(['Done slowly.']);
  });

  it('message/stream reports working, the answer artifact and completed', async () => {
    const client = await a2aClient(serving.agentUrls.helper!);
    llm.push({ toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'add-s' }] }, { text: 'Three.' });
    const events: StreamResponse[] = [];
    for await (const event of client.sendMessageStream(message('1 + 2?'))) events.push(event);
    expect(events[0]?.payload?.$case).toBe('task');
    const seen = states(events);
    expect(seen[0]).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(seen).toContain(TaskState.TASK_STATE_WORKING);
    expect(seen.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    const artifact = events.findLast((event) => event.payload?.$case === 'artifactUpdate');
    expect(
      artifact?.payload?.$case === 'artifactUpdate' && artifact.payload.value.artifact?.parts[0]?.content,
    ).toEqual({
      $case: 'text',
      value: 'Three.',
    });
    const tool = events.find(
      (event) =>
        event.payload?.$case === 'statusUpdate' &&
        JSON.stringify(event.payload.value.status?.message?.parts).includes('tool_completed'),
    );
    expect(tool).toBeDefined();
  });

  it("message/stream sends the model's live text as chunks of the answer, then the whole answer", async () => {
    const client = await a2aClient(serving.agentUrls.triage!);
    triageLlm.push({ object: { priority: 'low', team: 'docs' } });
    const chunks: Array<{ append: boolean; lastChunk: boolean; live: boolean; text: string }> = [];
    for await (const event of client.sendMessageStream(message('A typo in the docs'))) {
      if (event.payload?.$case !== 'artifactUpdate') continue;
      const { append, lastChunk, artifact } = event.payload.value;
      const first = artifact?.parts[0]?.content;
      chunks.push({
        append,
        lastChunk,
        live: artifact?.metadata?.live === true,
        text: first?.$case === 'text' ? first.value : '',
      });
    }
    const live = chunks.filter((chunk) => chunk.live);
    expect(live.length).toBeGreaterThan(0);
    expect(live[0]!.append).toBe(false);
    expect(live.map((chunk) => chunk.text).join('')).toBe('{"priority":"low","team":"docs"}');
    expect(chunks.at(-1)).toEqual({
      append: false,
      lastChunk: true,
      live: false,
      text: '{"priority":"low","team":"docs"}',
    });
  });

  it('tasks/cancel stops a running task: canceled, for get as well', async () => {
    const client = await a2aClient(serving.agentUrls.helper!);
    llm.push({ text: 'Never said.', delayMs: 30_000 });
    const task = asTask(await client.sendMessage(message('A long one', { returnImmediately: true })));
    const cancelled = await client.cancelTask({ tenant: '', id: task.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect((await client.getTask({ tenant: '', id: task.id })).status?.state).toBe(
      TaskState.TASK_STATE_CANCELED,
    );
    expect((await worker.agents.getHandle(task.id).result()).metadata.stop_reason).toBe('cancelled');
  });

  it('a structured answer is a data part of the artifact', async () => {
    const client = await a2aClient(serving.agentUrls.triage!);
    triageLlm.push({ object: { priority: 'high', team: 'billing' } });
    const task = asTask(await client.sendMessage(message('Invoices fail')));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts.map((part) => part.content)).toEqual([
      { $case: 'text', value: '{"priority":"high","team":"billing"}' },
      { $case: 'data', value: { priority: 'high', team: 'billing' } },
    ]);
  });

  it('an approval wait is input-required; after the A2A server restarted, resubscribe finds it and a message approves it', async () => {
    // A server of its own on a port that the restarted one takes again; the worker is elsewhere.
    let first = await serveA2a({
      agents: definitions,
      client: worker.agents,
      transport: { port: 0, bearerToken: TOKEN },
    });
    const port = Number(new URL(first.url).port);
    const url = first.agentUrls.guarded!;
    const before = await a2aClient(url);
    guardedLlm.push({ toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'add-g' }] }, { text: 'Five.' });
    const blocked = asTask(await before.sendMessage(message('2 + 3, please')));
    expect(blocked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const ask = blocked.status?.message?.parts[0]?.content;
    expect(ask?.$case === 'text' && ask.value).toMatch(/add-g \(add \{"a":2,"b":3\}\) waits for approval/);

    await first.close();
    first = await serveA2a({
      agents: definitions,
      client: worker.agents,
      transport: { port, bearerToken: TOKEN },
    });
    try {
      const client = await a2aClient(url);
      const updates: StreamResponse[] = [];
      const following = (async () => {
        for await (const event of client.resubscribeTask({ tenant: '', id: blocked.id })) updates.push(event);
      })();
      await expect.poll(() => updates.length).toBeGreaterThan(0);
      expect(states(updates)[0]).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

      const approved = asTask(await client.sendMessage(message('approve', { taskId: blocked.id })));
      expect(approved.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(textOf(approved)).toEqual(['Five.']);
      await following;
      expect(states(updates).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(guardedAdd.ran).toEqual([{ a: 2, b: 3 }]);

      // The same answer again changes nothing; an answer to an ended task is refused.
      await expect(client.sendMessage(message('approve', { taskId: blocked.id }))).rejects.toThrow(
        /has ended/,
      );
      expect(guardedAdd.ran).toHaveLength(1);
    } finally {
      await first.close();
    }
  });

  it('a turn of a context that waits for approval is input-required, and a message on it approves it', async () => {
    const client = await a2aClient(serving.agentUrls.guarded!);
    const contextId = randomUUID();
    guardedLlm.push({ toolCalls: [{ name: 'add', args: { a: 4, b: 4 }, id: 'add-t' }] }, { text: 'Eight.' });
    const blocked = asTask(await client.sendMessage(message('4 + 4', { contextId })));
    expect(blocked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(blocked.contextId).toBe(contextId);
    const done = asTask(await client.sendMessage(message('yes', { taskId: blocked.id })));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done)).toEqual(['Eight.']);
    expect(guardedAdd.ran).toContainEqual({ a: 4, b: 4 });
  });

  it('a rejection by message declines the call; the model is told', async () => {
    const client = await a2aClient(serving.agentUrls.guarded!);
    guardedLlm.push(
      { toolCalls: [{ name: 'add', args: { a: 9, b: 9 }, id: 'add-r' }] },
      { text: 'Not allowed.' },
    );
    const blocked = asTask(await client.sendMessage(message('9 + 9')));
    expect(blocked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = asTask(await client.sendMessage(message('reject: not today', { taskId: blocked.id })));
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(textOf(done)).toEqual(['Not allowed.']);
    expect(guardedAdd.ran).not.toContainEqual({ a: 9, b: 9 });
    expect(JSON.stringify(guardedLlm.calls.at(-1)?.messages)).toContain('not today');
  });
});

describe('serveA2a with a worker of its own', () => {
  it('runs the agents in this process on the given Temporal and task queue', async () => {
    const llm = queuedModel();
    const serving = await serveA2a({
      agents: { solo: { llm, autoProjectSkills: false } },
      temporal: { address: inject('temporalAddress'), taskQueue: `a2a-solo-${randomUUID()}` },
      transport: { port: 0, bearerToken: TOKEN },
      worker: {
        memoryStore: new InMemoryMemoryStore(),
        workflowBundle: { codePath: inject('workflowBundlePath') },
      },
    });
    try {
      const client = await a2aClient(serving.agentUrls.solo!);
      llm.push({ text: 'Hello from solo.' });
      const task = asTask(await client.sendMessage(message('Hi')));
      expect(textOf(task)).toEqual(['Hello from solo.']);
    } finally {
      await serving.close();
    }
  });
});
