import { randomUUID } from 'node:crypto';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryLongTermStore } from '../../src/long-term-memory/in-memory.ts';
import { localEmbedder } from '../../src/long-term-memory/local-embedder.ts';
import { LongTermMemory } from '../../src/long-term-memory/long-term-memory.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { InMemoryUsageStore } from '../../src/usage/in-memory.ts';
import { summarizeUsage } from '../../src/usage/summary.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

const EMBEDDER = 'local:all-minilm-l6-v2';
const lastContent = (request: ModelRequest) => String(request.messages.at(-1)?.content);
/** Whose memory: the user named before the first dot of the session id. */
const byUser = ({ sessionId }: { sessionId?: string }) => sessionId?.split('.')[0];

describe("memory's embedding tokens in the usage ledger, and the 'auto' recall's span", () => {
  const embedder = localEmbedder();
  const memory = new LongTermMemory({ store: new InMemoryLongTermStore(), embedder });
  const usageStore = new InMemoryUsageStore();
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const model = new ScriptedModel(
    Array.from({ length: 10 }, () => (request: ModelRequest) => ({ text: `Heard: ${lastContent(request)}` })),
  );
  /** Answers turns with "Noted.", and the observer's request with one observation, spending tokens. */
  const observer = new ScriptedModel(
    Array.from(
      { length: 10 },
      () => (request: ModelRequest) =>
        lastContent(request).startsWith('Condense this conversation')
          ? {
              text: '- The user is learning Portuguese for a trip to Porto in May.',
              usage: { input_tokens: 120, output_tokens: 15, total_tokens: 135 },
            }
          : { text: 'Noted.' },
    ),
  );
  /** Answers the first session; in the second, looks in memory with `recall_memory` first. */
  const seeker = new ScriptedModel([
    { text: 'Noted.' },
    { toolCalls: [{ name: 'recall_memory', args: { query: 'Which city is my sister in?' }, id: 'look-1' }] },
    (request: ModelRequest) => ({ text: `Found: ${lastContent(request)}` }),
  ]);
  let env: TestWorker;

  beforeAll(async () => {
    env = await startTestWorker(
      {
        keeper: { llm: model, memory: { store: memory, resource: byUser } },
        observer: { llm: observer, memory: { store: memory, resource: byUser, observe: { everyTurns: 2 } } },
        seeker: { llm: seeker, memory: { store: memory, resource: byUser, recall: { mode: 'tool' } } },
      },
      { telemetry: { tracerProvider }, usageStore },
    );
  });
  afterAll(async () => {
    await env?.stop();
    await memory.close();
  });

  /** The tokens the offline embedder spends on `texts`, counted by a second use of it. */
  const tokensOf = async (texts: string[]) => {
    const usage = { tokens: 0 };
    await embedder.embed(texts, usage);
    return usage.tokens;
  };
  const chat = (sessionId: string) =>
    env.agents.chatSession('keeper', { sessionId, memoryStore: env.memoryStore, tenant: 'acme' });

  it('records what remembering and recalling a turn spent, under the embedder, priced by pricing', async () => {
    const ana = `ana-${randomUUID().slice(0, 8)}`;
    const said = 'My sister Lucia lives in Lisbon and teaches piano.';
    await chat(`${ana}.1`).send(said);
    const embedded = async (use: string) =>
      (await usageStore.entries()).filter(
        (entry) => entry.key.includes(`/embed/${ana}.`) && entry.key.includes(`/${use}/`),
      );
    await expect.poll(async () => (await embedded('remember')).length, { timeout: 15_000 }).toBe(1);
    const [written] = await embedded('remember');
    expect(written).toMatchObject({
      model: EMBEDDER,
      tenant: 'acme',
      agent: 'keeper',
      input_tokens: await tokensOf([said, `Heard: ${said}`]),
      output_tokens: 0,
    });
    expect(written!.total_tokens).toBe(written!.input_tokens);

    const question = 'Where does my sister live?';
    await chat(`${ana}.2`).send(question);
    expect(lastContent(model.calls.at(-1)!)).toContain(said);
    const recalls = (await embedded('recall')).filter((entry) => entry.key.includes(`/embed/${ana}.2/`));
    expect(recalls).toHaveLength(1);
    expect(recalls[0]).toMatchObject({
      model: EMBEDDER,
      tenant: 'acme',
      input_tokens: await tokensOf([question]),
    });

    // `toolkit-agent usage` reads the store's sums: the embedder is a model of its own, priced by its id.
    const report = summarizeUsage(await usageStore.sums({ tenant: 'acme' }, 'model'), {
      groupBy: 'model',
      pricing: { 'all-minilm-l6-v2': { input: 1_000_000, output: 0 } },
    });
    const line = report.groups?.find((group) => group.key === EMBEDDER);
    const spent = (await usageStore.entries({ tenant: 'acme' }))
      .filter((entry) => entry.model === EMBEDDER)
      .reduce((sum, entry) => sum + entry.input_tokens, 0);
    expect(line?.input_tokens).toBe(spent);
    expect(line?.cost).toBeCloseTo(spent);
    expect(report.unpriced_models ?? []).not.toContain(EMBEDDER);
  });

  it("records the query embedding of a recall_memory call at a line of the call's id", async () => {
    const dan = `dan-${randomUUID().slice(0, 8)}`;
    const seek = (sessionId: string) =>
      env.agents.chatSession('seeker', { sessionId, memoryStore: env.memoryStore, tenant: 'acme' });
    await seek(`${dan}.1`).send('My sister Ines lives in Porto.');
    await expect
      .poll(
        async () =>
          (await memory.recall({ resource: `tenant:acme/${dan}`, query: 'sister', limit: 5 })).length,
        { timeout: 15_000 },
      )
      .toBe(2);
    const answer = await seek(`${dan}.2`).send('Where is my sister again?');
    expect(answer.output).toContain('My sister Ines lives in Porto.');
    const lines = (await usageStore.entries()).filter((entry) => entry.key.includes(`/embed/${dan}.2/`));
    // No 'auto' recall in this mode: the one line is the tool's, keyed by its call id.
    expect(lines).toHaveLength(1);
    expect(lines[0]!.key).toMatch(new RegExp(`/embed/${dan}\\.2/recall_memory/look-1$`));
    expect(lines[0]).toMatchObject({
      model: EMBEDDER,
      tenant: 'acme',
      agent: 'seeker',
      input_tokens: await tokensOf(['Which city is my sister in?']),
      output_tokens: 0,
    });
  });

  it("traces the 'auto' recall into a turn's prompt as a recall_memory span", async () => {
    const ben = `ben-${randomUUID().slice(0, 8)}`;
    await chat(`${ben}.1`).send('I keep bees on the roof of my flat.');
    await expect
      .poll(
        async () => (await memory.recall({ resource: `tenant:acme/${ben}`, query: 'bees', limit: 5 })).length,
        {
          timeout: 15_000,
        },
      )
      .toBe(2);
    await chat(`${ben}.2`).send('What do I keep on my roof?');
    await tracerProvider.forceFlush();
    const spans = exporter.getFinishedSpans().filter((span) => span.name === 'recall_memory');
    const first = spans.find((span) => span.attributes['gen_ai.conversation.id'] === `${ben}.1`);
    const second = spans.find((span) => span.attributes['gen_ai.conversation.id'] === `${ben}.2`);
    // The first session had nothing to recall; the second recalled both messages of the first.
    expect(first?.attributes['toolkit_agent.memory.messages']).toBe(0);
    expect(second?.attributes).toMatchObject({
      'gen_ai.agent.name': 'keeper',
      'toolkit_agent.memory.recall_mode': 'auto',
      'toolkit_agent.memory.messages': 2,
      'toolkit_agent.tenant': 'acme',
    });
    expect(JSON.stringify(second?.attributes)).not.toContain('bees');
  });

  it("records the observer's model call and the observations' embedding", async () => {
    const cleo = `cleo-${randomUUID().slice(0, 8)}`;
    const session = env.agents.chatSession('observer', {
      sessionId: `${cleo}.1`,
      memoryStore: env.memoryStore,
      tenant: 'acme',
    });
    await session.send('I am learning Portuguese.');
    await session.send('It is for a trip to Porto in May.');
    const lines = async (part: string) =>
      (await usageStore.entries()).filter((entry) => entry.key.includes(`/${part}/${cleo}.1/`));
    await expect.poll(async () => (await lines('observe')).length, { timeout: 15_000 }).toBe(1);
    const [call] = await lines('observe');
    expect(call).toMatchObject({ agent: 'observer', tenant: 'acme', input_tokens: 120, output_tokens: 15 });
    expect(call!.key).toMatch(/\/observe\/[^/]+\/1-\d+$/);
    expect(call!.model).not.toBe(EMBEDDER);
    await expect
      .poll(async () => (await lines('embed')).filter((entry) => entry.key.includes('/observe/')).length, {
        timeout: 15_000,
      })
      .toBe(1);
    const [embedded] = (await lines('embed')).filter((entry) => entry.key.includes('/observe/'));
    const date = new Date(embedded!.at).toISOString().slice(0, 10);
    expect(embedded).toMatchObject({
      model: EMBEDDER,
      tenant: 'acme',
      input_tokens: await tokensOf([
        `Observations of ${date}:\n- The user is learning Portuguese for a trip to Porto in May.`,
      ]),
    });
  });
});
