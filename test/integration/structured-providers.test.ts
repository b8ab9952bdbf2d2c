import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { afterAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { aiSdkModel, type LanguageModel } from '../../src/models/ai-sdk.ts';
import { startAnthropicServer } from '../support/providers/anthropic-server.ts';
import { startOpenAIChatServer } from '../support/providers/openai-chat-server.ts';
import type { ProviderServer, ProviderTurn } from '../support/providers/scripted-provider.ts';
import { AddTool } from './tools.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

const API_KEY = 'sk-provider-canary-0c4d21';
const Sum = z.object({ sum: z.number(), explanation: z.string() });
const ANSWER = { sum: 42, explanation: 'two plus forty' };
const JSON_ANSWER = JSON.stringify(ANSWER);

/** Step 1: a tool call; step 2: the object, written in pieces with pauses (live `partial_output`). */
function script(): ProviderTurn[] {
  return [
    { toolCalls: [{ id: 'call_add', name: 'add', args: { a: 2, b: 40 } }], usage: { input: 30, output: 12 } },
    {
      text: JSON_ANSWER,
      chunks: ['{"sum": 42, ', '"explanation": "two ', 'plus forty"}'],
      chunkDelayMs: 250,
      usage: { input: 60, output: 9 },
    },
  ];
}

const providers: Array<{
  name: string;
  start(turns: ProviderTurn[]): Promise<ProviderServer>;
  model(server: ProviderServer): LanguageModel;
  /** Where the provider's wire format carries the schema. */
  schemaIn(body: Record<string, unknown>): unknown;
}> = [
  {
    name: 'OpenAI chat',
    start: startOpenAIChatServer,
    model: (server) => createOpenAI({ apiKey: API_KEY, baseURL: `${server.url}/v1` }).chat('gpt-test'),
    schemaIn: (body) => {
      const format = body.response_format as { type: string; json_schema: { schema: unknown } };
      expect(format.type).toBe('json_schema');
      return format.json_schema.schema;
    },
  },
  {
    name: 'Anthropic',
    start: startAnthropicServer,
    // A model with native structured outputs: the schema goes in `output_config.format`.
    model: (server) => createAnthropic({ apiKey: API_KEY, baseURL: `${server.url}/v1` })('claude-sonnet-4-5'),
    schemaIn: (body) => {
      const format = (body.output_config as { format: { type: string; schema: unknown } }).format;
      expect(format.type).toBe('json_schema');
      return format.schema;
    },
  },
];

/** The schema as a provider receives it: the AI SDK may tidy it (`$schema` dropped and so on). */
function sameFields(sent: unknown): void {
  expect(sent).toMatchObject({
    type: 'object',
    properties: { sum: { type: 'number' }, explanation: { type: 'string' } },
    required: ['sum', 'explanation'],
  });
}

describe.each(providers)('structured output through $name’s real provider package', (provider) => {
  const servers: ProviderServer[] = [];
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const server of servers) await server.close();
  });

  it('sends the schema natively on each step (tools alongside) and returns the typed object, with no extra request', async () => {
    const server = await provider.start(script());
    servers.push(server);
    const env = await startTestWorker({
      agent: { llm: provider.model(server), tools: [new AddTool()], liveText: { batchMs: 50 } },
    });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Add 2 and 40 and explain', { output: Sum });
    const events = await collect(handle.events());
    const result = await handle.result();

    expectTypeOf(result.output).toEqualTypeOf<{ sum: number; explanation: string }>();
    expect(result.output).toEqual(ANSWER);
    expect(result.metadata).toMatchObject({ stop_reason: 'completed', iterations: 2, output_repairs: 0 });
    // As many requests as a plain run: the structured answer costs no round trip of its own.
    expect(server.bodies).toHaveLength(2);
    for (const body of server.bodies) {
      sameFields(provider.schemaIn(body));
      expect(JSON.stringify(body.tools)).toContain('"add"');
    }
    const partials = events.filter((e) => e.type === 'partial_output').map((e) => e.payload.output);
    expect(partials.length).toBeGreaterThan(1);
    expect(partials[0]).toMatchObject({ sum: 42 });
    expect(partials.at(-1)).toEqual(ANSWER);
    expect(events.at(-1)).toMatchObject({ type: 'run_completed', payload: { output: ANSWER } });
    expect(JSON.stringify(server.bodies)).not.toContain(API_KEY);
  });
});

describe('structured output through a final-answer tool (a model without a native response format)', () => {
  let server: ProviderServer;
  let env: TestWorker;
  afterAll(async () => {
    await env?.stop();
    await server?.close();
  });

  it('offers `final_answer` with the schema as parameters and takes its arguments as the answer', async () => {
    server = await startOpenAIChatServer([
      { toolCalls: [{ id: 'call_add', name: 'add', args: { a: 2, b: 40 } }] },
      // A wrong type first: the repair goes back as a user message after the converted answer.
      { toolCalls: [{ id: 'call_final_1', name: 'final_answer', args: { sum: '42', explanation: 'x' } }] },
      { toolCalls: [{ id: 'call_final_2', name: 'final_answer', args: ANSWER }] },
    ]);
    const llm = aiSdkModel(createOpenAI({ apiKey: API_KEY, baseURL: `${server.url}/v1` }).chat('gpt-test'), {
      structuredOutput: 'tool',
    });
    env = await startTestWorker({ agent: { llm, tools: [new AddTool()] } });
    const handle = await env.agents.start('agent', 'Add 2 and 40 and explain', { output: Sum });
    const events = await collect(handle.events());
    const result = await handle.result();

    expect(result.output).toEqual(ANSWER);
    expect(result.metadata).toMatchObject({ stop_reason: 'completed', iterations: 3, output_repairs: 1 });
    // The tool's arguments stream as the answer: `partial_output` as with a native response format.
    const partials = events.filter((e) => e.type === 'partial_output').map((e) => e.payload.output);
    expect(partials.at(-1)).toEqual(ANSWER);
    expect(server.bodies).toHaveLength(3);
    for (const body of server.bodies) {
      expect(body.response_format).toBeUndefined();
      const tools = body.tools as Array<{ function: { name: string; parameters: unknown } }>;
      expect(tools.map((tool) => tool.function.name)).toEqual(['add', 'final_answer']);
      sameFields(tools[1]!.function.parameters);
    }
    // The provider accepted the conversation: the answer was stored as text, not as an unanswered call.
    const messages = server.bodies[2]!.messages as Array<{ role: string; content: unknown }>;
    expect(messages.at(-2)).toMatchObject({ role: 'assistant', content: '{"sum":"42","explanation":"x"}' });
    expect(String(messages.at(-1)!.content)).toMatch(/- sum: Invalid input: expected number/);
  });
});
