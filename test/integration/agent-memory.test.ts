import { randomUUID } from 'node:crypto';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentDefinition } from '../../src/agent/definition.ts';
import { EVENTS_QUERY, type AgentEvent } from '../../src/common/events.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { piiGuardrail } from '../../src/guardrails/pii.ts';
import { InMemoryLongTermStore } from '../../src/long-term-memory/in-memory.ts';
import { LongTermMemory } from '../../src/long-term-memory/long-term-memory.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { TokenTool } from './tools.ts';

const CANARY = 'sk-memory-canary-8d1f0c2e';
const lastContent = (request: ModelRequest) => String(request.messages.at(-1)?.content);
/** A model that answers every step by saying what it was last given. */
const echo = (steps = 40): ScriptedModel =>
  new ScriptedModel(
    Array.from({ length: steps }, () => (request: ModelRequest) => ({
      text: `Heard: ${lastContent(request)}`,
    })),
  );
/** Whose memory: the user named before the first dot of the session id; a run's tenant's user otherwise. */
const resource: NonNullable<AgentDefinition['memory']>['resource'] = ({ sessionId, tenant }) =>
  sessionId ? sessionId.split('.')[0] : tenant ? 'desk-user' : undefined;

describe('agents that remember: chat turns and runs in long-term memory, recalled in later sessions', () => {
  const memory = new LongTermMemory({ store: new InMemoryLongTermStore() });
  const credentialStore = new InMemoryCredentialStore();
  let env: TestWorker;
  const autoModel = echo();
  const guardedModel = echo();
  const toolModel = new ScriptedModel([
    { text: 'Noted.' },
    { toolCalls: [{ name: 'recall_memory', args: { query: 'dog name' }, id: 'r1' }] },
    (request) => ({ text: `From memory: ${lastContent(request)}` }),
  ]);
  const secretModel = new ScriptedModel([
    { toolCalls: [{ name: 'token', args: {}, id: 't1' }] },
    (request): ScriptedStep => ({ text: `Tool said: ${lastContent(request)}` }),
  ]);
  const profileModel = new ScriptedModel([
    (request) => ({ text: `Seen: ${lastContent(request)}` }),
    { toolCalls: [{ name: 'update_working_memory', args: { name: 'Grace', pet: 'a dog' }, id: 'w1' }] },
    { text: 'Saved.' },
    (request) => ({ text: `Seen: ${lastContent(request)}` }),
  ]);
  /** Answers turns with "Noted.", and the observer's request with one observation. */
  const observerModel = new ScriptedModel(
    Array.from({ length: 20 }, () => (request: ModelRequest) => ({
      text: lastContent(request).startsWith('Condense this conversation')
        ? '- The user is learning Portuguese for a trip to Porto in May.'
        : `Noted: ${lastContent(request)}`,
    })),
  );
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const user = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    await credentialStore.put({ name: 'upstream', type: 'bearer', token: CANARY }, { tenant: 'acme' });
    env = await startTestWorker(
      {
        auto: { llm: autoModel, memory: { store: memory, resource } },
        tool: { llm: toolModel, memory: { store: memory, resource, recall: { mode: 'tool', limit: 3 } } },
        profile: {
          llm: profileModel,
          memory: {
            store: memory,
            resource,
            workingMemory: z.object({ name: z.string(), pet: z.string(), city: z.string() }),
          },
        },
        guarded: {
          llm: guardedModel,
          memory: { store: memory, resource },
          guardrails: { input: [piiGuardrail()] },
        },
        observer: { llm: observerModel, memory: { store: memory, resource, observe: { everyTurns: 2 } } },
        secret: {
          llm: secretModel,
          tools: [new TokenTool()],
          credentialStore,
          memory: { store: memory, resource },
        },
      },
      { telemetry: { tracerProvider } },
    );
  });
  afterAll(async () => {
    await env?.stop();
    await memory.close();
  });

  const chat = (agent: string, sessionId: string, tenant?: string) =>
    env.agents.chatSession(agent, { sessionId, memoryStore: env.memoryStore, ...(tenant ? { tenant } : {}) });
  /** Waits (bounded) until `count` messages of the resource match `query`: the write is off the answer's path. */
  const remembered = async (scoped: string, query: string, count: number) => {
    await expect
      .poll(async () => (await memory.recall({ resource: scoped, query, limit: 20 })).length, {
        timeout: 15_000,
      })
      .toBe(count);
  };
  const sessionEvents = (sessionId: string) =>
    env.client.workflow
      .getHandle(chat('auto', sessionId).workflowId)
      .query<AgentEvent[], [number]>(EVENTS_QUERY, 0);

  it("recalls a user's first session in their second, in the prompt after the cached prefix, and says so in events", async () => {
    const alice = user('alice');
    await chat('auto', `${alice}.1`).send('I adopted a dog named Biscuit last week.');
    await remembered(alice, 'Biscuit', 2);
    const first = await sessionEvents(`${alice}.1`);
    const written = first.find((event) => event.type === 'memory_written');
    const turnId = String(written?.payload.turn_id);
    // Ids from the session, the turn and the position: a write made again replaces, never adds.
    expect(written?.payload.message_ids).toEqual([`${alice}.1/${turnId}/1`, `${alice}.1/${turnId}/2`]);

    const second = chat('auto', `${alice}.2`);
    await second.send("What is my dog's name?");
    const request = autoModel.calls.at(-1)!;
    const prompt = lastContent(request);
    expect(prompt).toMatch(/^Remembered from earlier conversations with this user/);
    expect(prompt).toContain('I adopted a dog named Biscuit last week.');
    expect(prompt.endsWith("What is my dog's name?")).toBe(true);
    // The system prompt stays first and unchanged: the cached prefix does not move.
    expect(request.messages[0]).toEqual({ role: 'system', content: 'You are a helpful assistant.' });
    const recalled = (await sessionEvents(`${alice}.2`)).find((event) => event.type === 'memory_recalled');
    expect(recalled?.payload).toMatchObject({ mode: 'auto', turn_id: expect.any(String) as unknown });
    expect(recalled?.payload.message_ids).toContain(`${alice}.1/${turnId}/1`);
    // Each write is a span, with how many messages it wrote (never their text).
    await tracerProvider.forceFlush();
    const span = exporter
      .getFinishedSpans()
      .find((s) => s.name === 'remember_memory' && s.attributes['gen_ai.conversation.id'] === `${alice}.1`);
    expect(span?.attributes).toMatchObject({
      'gen_ai.agent.name': 'auto',
      'toolkit_agent.memory.messages': 2,
    });
    // What the user sees of the session is what they said, not what memory added.
    expect((await second.history())[0]).toEqual({ role: 'user', content: "What is my dog's name?" });
  });

  it('keeps what was recalled for a prompt an input guardrail rewrote', async () => {
    const jane = user('jane');
    await chat('guarded', `${jane}.1`).send('My dog is called Biscuit.');
    await remembered(jane, 'Biscuit', 2);
    await chat('guarded', `${jane}.2`).send("I'm jane@example.com: what is my dog called?");
    const prompt = lastContent(guardedModel.calls.at(-1)!);
    expect(prompt).toMatch(/^Remembered from earlier conversations[^]*My dog is called Biscuit\./);
    expect(prompt).toContain("I'm [EMAIL]: what is my dog called?");
    expect(prompt).not.toContain('jane@example.com');
  });

  it('never recalls one resource for another, nor one tenant for another', async () => {
    const alice = user('alice');
    const bob = user('bob');
    await chat('auto', `${alice}.1`).send('My cat is called Pepper.');
    await remembered(alice, 'Pepper', 2);
    const calls = autoModel.calls.length;
    await chat('auto', `${bob}.1`).send('What is my cat called? Pepper?');
    expect(lastContent(autoModel.calls[calls]!)).toBe('What is my cat called? Pepper?');
    expect((await sessionEvents(`${bob}.1`)).map((event) => event.type)).not.toContain('memory_recalled');

    // Runs of two tenants with the same resource name: each tenant's memory is its own.
    await env.agents.run('auto', 'Our office moved to Lisbon.', { tenant: `acme-${alice}` });
    await remembered(`tenant:acme-${alice}/desk-user`, 'Lisbon', 2);
    const before = autoModel.calls.length;
    await env.agents.run('auto', 'Where is our office? Lisbon?', { tenant: `globex-${alice}` });
    expect(lastContent(autoModel.calls[before]!)).toBe('Where is our office? Lisbon?');
    await env.agents.run('auto', 'Where is our office?', { tenant: `acme-${alice}` });
    expect(lastContent(autoModel.calls.at(-1)!)).toContain('Our office moved to Lisbon.');
    expect(await memory.recall({ resource: 'desk-user', query: 'Lisbon', limit: 5 })).toEqual([]);
  });

  it("gives the model recall_memory in 'tool' mode, which finds the first session", async () => {
    const carol = user('carol');
    await chat('tool', `${carol}.1`).send('My dog is named Biscuit.');
    // The prompt, and the answer by the words of the prompt it answers.
    await remembered(carol, 'Biscuit', 2);
    expect(toolModel.calls[0]!.tools.map((tool) => tool.function.name)).toEqual(['recall_memory']);
    const answer = await chat('tool', `${carol}.2`).send('Remind me what my dog is called.');
    expect(answer.output).toMatch(
      /^From memory: Remembered from earlier conversations.*My dog is named Biscuit\./s,
    );
    // Nothing was put in the prompt in this mode.
    expect(lastContent(toolModel.calls[1]!)).toBe('Remind me what my dog is called.');
    const events = await sessionEvents(`${carol}.2`);
    expect(events.find((event) => event.type === 'memory_recalled')?.payload).toMatchObject({
      mode: 'tool',
      call_id: 'r1',
      message_ids: [expect.stringContaining(`${carol}.1/`), expect.stringContaining(`${carol}.1/`)],
    });
    const completed = events.find((event) => event.type === 'tool_completed');
    expect(completed?.payload.metadata).toMatchObject({
      memory_recalled: [expect.stringContaining(`${carol}.1/`), expect.stringContaining(`${carol}.1/`)],
    });
  });

  it('keeps a working memory the model updates with its tool, shown at the start of every later turn', async () => {
    const grace = user('grace');
    const first = chat('profile', `${grace}.1`);
    expect(await first.send('Hello!')).toMatchObject({
      output: expect.stringMatching(/^Seen: Working memory about this user.*\n\{\}\n\nHello!$/s) as unknown,
    });
    const tool = profileModel.calls[0]!.tools.find(
      (schema) => schema.function.name === 'update_working_memory',
    );
    expect(Object.keys((tool!.function.parameters as { properties: object }).properties)).toEqual([
      'name',
      'pet',
      'city',
    ]);
    await first.send("I'm Grace and I have a dog.");
    const updated = (await sessionEvents(`${grace}.1`)).find(
      (event) => event.type === 'working_memory_updated',
    );
    expect(updated?.payload).toMatchObject({ fields: ['name', 'pet'], call_id: 'w1' });
    // The next turn, in another session of the same user, starts with the profile.
    const next = await chat('profile', `${grace}.2`).send('What do you know about me?');
    expect(next.output).toContain('{"name":"Grace","pet":"a dog"}');
    expect(next.output.endsWith('What do you know about me?')).toBe(true);
  });

  it('condenses every two turns of a session into dated observations, recalled like turns in the next session', async () => {
    const ivy = user('ivy');
    const first = chat('observer', `${ivy}.1`);
    await first.send("I'm learning Portuguese.");
    await first.send("I'm flying to Porto in May.");
    await expect
      .poll(
        async () => (await sessionEvents(`${ivy}.1`)).filter((e) => e.type === 'memory_observed').length,
        {
          timeout: 15_000,
        },
      )
      .toBe(1);
    const observed = (await sessionEvents(`${ivy}.1`)).find((event) => event.type === 'memory_observed');
    const id = `${ivy}.1/observations/1-5`;
    expect(observed?.payload).toMatchObject({ message_ids: [id], from_seq: 1, to_seq: 5 });
    // The observer read both turns, dated.
    const asked = observerModel.calls.find((call) => lastContent(call).startsWith('Condense'))!;
    expect(lastContent(asked)).toMatch(/^Condense this conversation of \d{4}-\d{2}-\d{2} /);
    expect(lastContent(asked)).toContain(
      "User: I'm learning Portuguese.\nAssistant: Noted: I'm learning Portuguese.",
    );
    const hits = await memory.recall({ resource: ivy, query: 'trip Porto May', limit: 5 });
    expect(hits[0]).toMatchObject({
      messageId: id,
      text: expect.stringMatching(/^Observations of \d{4}-\d{2}-\d{2}:\n- The user is learning/) as unknown,
    });
    // A third turn does not condense again; the next session recalls the observation.
    await first.send('Thanks!');
    await chat('observer', `${ivy}.2`).send('When is my trip?');
    expect(lastContent(observerModel.calls.at(-1)!)).toContain(
      'The user is learning Portuguese for a trip to Porto in May.',
    );
    expect(observerModel.calls.filter((call) => lastContent(call).startsWith('Condense'))).toHaveLength(1);
  });

  it('keeps secrets out of memory, its events and history', async () => {
    const dave = user('dave');
    const session = chat('secret', `${dave}.1`, 'acme');
    const answer = await session.send('What does the token say?');
    expect(answer.output).toBe('Tool said: the token is [REDACTED]');
    await remembered(`tenant:acme/${dave}`, 'token', 2);
    const hits = await memory.recall({ resource: `tenant:acme/${dave}`, query: 'token', limit: 10 });
    expect(hits.map((hit) => hit.text)).toEqual(
      expect.arrayContaining(['What does the token say?', 'Tool said: the token is [REDACTED]']),
    );
    const events = await sessionEvents(`${dave}.1`);
    expect(events.some((event) => event.type === 'memory_written')).toBe(true);
    const { events: history } = await env.client.workflow.getHandle(session.workflowId).fetchHistory();
    expect(JSON.stringify(history)).not.toContain(CANARY);
    expect(JSON.stringify(events)).not.toContain(CANARY);
    expect(JSON.stringify(hits)).not.toContain(CANARY);
  });
});
