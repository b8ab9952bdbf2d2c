import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../src/agent/definition.ts';
import { ModelError, RunFailedError } from '../../src/errors.ts';
import { aiSdkModel, type LanguageModel } from '../../src/models/ai-sdk.ts';
import { startAnthropicServer } from '../support/providers/anthropic-server.ts';
import { startOpenAIChatServer } from '../support/providers/openai-chat-server.ts';
import type { ProviderServer, ProviderTurn } from '../support/providers/scripted-provider.ts';
import { AddTool, BrokenTool } from './tools.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

const API_KEY = 'sk-provider-canary-5f1e9a';

/** Step 1: two parallel calls, one of which fails; step 2: the answer. */
function parallelScript(): ProviderTurn[] {
  return [
    {
      toolCalls: [
        { id: 'call_add', name: 'add', args: { a: 2, b: 40 } },
        { id: 'call_broken', name: 'broken', args: {} },
      ],
      usage: { input: 30, output: 12 },
    },
    { text: 'The sum is 42; the other service is down.', usage: { input: 60, output: 9 } },
  ];
}

const providers: Array<{
  name: string;
  start(turns: ProviderTurn[]): Promise<ProviderServer>;
  model(server: ProviderServer): LanguageModel;
}> = [
  {
    name: 'OpenAI chat',
    start: startOpenAIChatServer,
    model: (server) => createOpenAI({ apiKey: API_KEY, baseURL: `${server.url}/v1` }).chat('gpt-test'),
  },
  {
    name: 'Anthropic',
    start: startAnthropicServer,
    model: (server) => createAnthropic({ apiKey: API_KEY, baseURL: `${server.url}/v1` })('claude-test'),
  },
];

describe.each(providers)('$name through the real provider package', (provider) => {
  const servers: ProviderServer[] = [];
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const server of servers) await server.close();
  });

  async function setup(turns: ProviderTurn[], stream = true, timeouts: AgentDefinition['timeouts'] = {}) {
    const server = await provider.start(turns);
    servers.push(server);
    const llm = stream ? provider.model(server) : aiSdkModel(provider.model(server), { stream: false });
    const env = await startTestWorker({
      agent: {
        llm,
        tools: [new AddTool(), new BrokenTool()],
        timeouts: { toolMaxAttempts: 1, ...timeouts },
      },
    });
    workers.push(env);
    return { server, env };
  }

  it.each([true, false])(
    'runs parallel tool calls and a failing tool, paired as the service requires (stream: %s)',
    async (stream) => {
      const { server, env } = await setup(parallelScript(), stream);
      const handle = await env.agents.start('agent', 'Add 2 and 40, and check the broken service');
      const events = await collect(handle.events());
      const result = await handle.result();

      expect(result.output).toBe('The sum is 42; the other service is down.');
      expect(result.metadata).toMatchObject({
        stop_reason: 'completed',
        iterations: 2,
        usage: { input_tokens: 90, output_tokens: 21, total_tokens: 111 },
        step_usage: [
          { input_tokens: 30, output_tokens: 12, total_tokens: 42 },
          { input_tokens: 60, output_tokens: 9, total_tokens: 69 },
        ],
      });
      expect(result.metadata.model).toMatch(/gpt-test|claude-test/);
      expect(events.filter((e) => e.type === 'tool_completed').map((e) => e.payload.call_id)).toEqual([
        'call_add',
      ]);
      expect(events.filter((e) => e.type === 'tool_failed').map((e) => e.payload.call_id)).toEqual([
        'call_broken',
      ]);
      // The service accepted both requests: the second carried both results, in call order.
      expect(server.bodies).toHaveLength(2);
      expect(resultIds(server.bodies[1]!)).toEqual(['call_add', 'call_broken']);
      expect(JSON.stringify(server.bodies[1])).toContain('upstream said no');
      // The API key went to the provider, and nowhere into history.
      expect(JSON.stringify(await handle.workflow.fetchHistory())).not.toContain(API_KEY);
    },
  );

  it('is refused by the service when a tool result is missing (the servers enforce pairing)', async () => {
    const server = await provider.start([{ text: 'never reached' }]);
    servers.push(server);
    const adapter = aiSdkModel(provider.model(server));
    const error = await adapter
      .generate({
        tools: [],
        messages: [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'call_orphan', name: 'add', args: { a: 1, b: 2 } }],
          },
          { role: 'user', content: 'no result given' },
        ],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe(400);
    expect((error as ModelError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/call_orphan/);
  });

  it('waits out a long Retry-After of a model step on a durable timer, saying so, with its attempts whole', async () => {
    const { server, env } = await setup(
      [
        { toolCalls: [{ id: 'call_add', name: 'add', args: { a: 1, b: 2 } }] },
        {
          status: 429,
          headers: { 'retry-after': '2' },
          body: { error: { message: 'Rate limit reached', type: 'rate_limit_error' } },
        },
        { text: 'It is 3.' },
      ],
      true,
      // Over 1 s is long here; one attempt: an activity retry would fail the run.
      { longRetryAfterMs: 1_000, modelMaxAttempts: 1 },
    );
    const handle = await env.agents.start('agent', 'Add 1 and 2');
    const events = await collect(handle.events());
    expect((await handle.result()).output).toBe('It is 3.');
    expect(server.statuses).toEqual([200, 429, 200]);
    const waiting = events.filter((e) => e.type === 'model_waiting');
    expect(waiting).toHaveLength(1);
    expect(waiting[0]!.payload).toMatchObject({ reason: 'rate_limit', retry_after_ms: 2_000, wait: 1 });
    // The wait is a timer of the workflow's, not an activity retry.
    const history = await handle.workflow.fetchHistory();
    const timers = history.events?.filter((e) => e.timerStartedEventAttributes) ?? [];
    expect(timers.map((e) => Number(e.timerStartedEventAttributes!.startToFireTimeout!.seconds))).toEqual([
      2,
    ]);
  });

  it('retries a 429 after Retry-After, and fails the run at once on a 400 with the service message', async () => {
    const limited = await setup([
      {
        status: 429,
        headers: { 'retry-after': '1' },
        body: { error: { message: 'Rate limit reached', type: 'rate_limit_error' } },
      },
      { text: 'after the wait' },
    ]);
    const started = Date.now();
    expect((await limited.env.agents.run('agent', 'hello')).output).toBe('after the wait');
    expect(limited.server.bodies).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);

    const refused = await setup([
      {
        status: 400,
        body: { error: { message: 'max_tokens: must be positive', type: 'invalid_request_error' } },
      },
    ]);
    const failure = await refused.env.agents.run('agent', 'hello').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RunFailedError);
    expect((failure as Error).message).toMatch(/answered 400.*max_tokens: must be positive.*not retried/);
    expect(refused.server.bodies).toHaveLength(1);
  });
});

describe('Anthropic extended thinking', () => {
  it('emits the reasoning events in order and hands the signed thinking back, as the service requires', async () => {
    const server = await startAnthropicServer([
      {
        thinking: 'The user wants a sum; call add.',
        toolCalls: [{ id: 'toolu_1', name: 'add', args: { a: 1, b: 2 } }],
      },
      { thinking: 'Now answer.', text: 'It is 3.' },
    ]);
    const model = createAnthropic({ apiKey: API_KEY, baseURL: `${server.url}/v1` })('claude-test');
    const llm = aiSdkModel(model, {
      callOptions: {
        maxOutputTokens: 4096,
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      },
    });
    const env = await startTestWorker({ thinker: { llm, tools: [new AddTool()] } });
    try {
      const handle = await env.agents.start('thinker', 'What is 1 + 2?');
      const events = await collect(handle.events());
      expect((await handle.result()).output).toBe('It is 3.');
      // Live text (text_delta) may come between; the order of the others is what this checks.
      expect(events.map((e) => e.type).filter((type) => type !== 'text_delta')).toEqual([
        'run_started',
        'step_started',
        'reasoning_started',
        'reasoning_completed',
        'tool_called',
        'tool_completed',
        'step_started',
        'reasoning_started',
        'reasoning_completed',
        'run_completed',
      ]);
      expect(events[3]!.payload.reasoning).toBe('The user wants a sum; call add.');
      const sent = (
        server.bodies[1]!.messages as Array<{ role: string; content: Array<{ type: string }> }>
      )[1]!;
      expect(sent.role).toBe('assistant');
      expect(sent.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
    } finally {
      await env.stop();
      await server.close();
    }
  });
});

/** The tool-call ids a request answers, in order, in either provider's format. */
function resultIds(body: Record<string, unknown>): string[] {
  const messages = body.messages as Array<{ role: string; tool_call_id?: string; content?: unknown }>;
  return messages.flatMap((message) => {
    if (message.role === 'tool') return [message.tool_call_id!];
    if (Array.isArray(message.content)) {
      return (message.content as Array<{ type: string; tool_use_id?: string }>)
        .filter((block) => block.type === 'tool_result')
        .map((block) => block.tool_use_id!);
    }
    return [];
  });
}
