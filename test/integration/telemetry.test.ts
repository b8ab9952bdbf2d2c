import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

const SECRET = 'sk-telemetry-canary-5e1d7a';
const PROMPT = 'Look up the account of PROMPT-CANARY-93c2';

/** Reads its credential and (carelessly) returns it: the activity redacts it before anything sees it. */
class AccountTool extends BaseConnectorTool {
  readonly name = 'account';
  readonly description = 'Looks up the account';
  readonly parameters = z.object({ id: z.string() });
  protected override readonly defaultCredentialKey = 'accounts';

  async run(context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const { token } = await this.getCredential(context);
    return { text: `account ${String(args.id)} is active (token ${token})`, metadata: {} };
  }
}

class FailingTool extends BaseConnectorTool {
  readonly name = 'failing';
  readonly description = 'Always fails';
  readonly parameters = z.object({});
  async run(): Promise<ToolOutput> {
    throw new Error('the upstream is down');
  }
}

function twoStepModel(): ScriptedModel {
  return new ScriptedModel([
    {
      toolCalls: [{ name: 'account', args: { id: 'acct-7' }, id: 'call_account' }],
      usage: { input_tokens: 11, output_tokens: 3, total_tokens: 14 },
    },
    { text: 'The account is active.', usage: { input_tokens: 20, output_tokens: 5, total_tokens: 25 } },
  ]);
}

/** A worker whose spans go to an in-memory exporter, and a client that traces too. */
async function tracedWorker(recordContent: boolean) {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const credentialStore = new InMemoryCredentialStore();
  await credentialStore.put({ name: 'accounts', type: 'bearer', token: SECRET });
  await credentialStore.put({ name: 'accounts', type: 'bearer', token: SECRET }, { tenant: 'acme' });
  const env = await startTestWorker(
    {
      support: { llm: twoStepModel(), tools: [new AccountTool()], credentialStore },
      failing: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'failing', args: {}, id: 'call_fail' }] },
          { text: 'It failed.' },
        ]),
        tools: [new FailingTool()],
        timeouts: { toolMaxAttempts: 1 },
      },
    },
    { telemetry: { tracerProvider, recordContent } },
  );
  return { env, exporter };
}

/** The spans of one run's trace, once its `invoke_agent` span (exported when the workflow ends) is in. */
async function traceOf(exporter: InMemorySpanExporter, agent: string): Promise<ReadableSpan[]> {
  for (let attempt = 0; ; attempt++) {
    const root = exporter.getFinishedSpans().find((span) => span.name === `invoke_agent ${agent}`);
    if (root) {
      return exporter
        .getFinishedSpans()
        .filter((s) => s.spanContext().traceId === root.spanContext().traceId);
    }
    if (attempt === 100) throw new Error(`No invoke_agent ${agent} span was exported.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function ancestors(span: ReadableSpan, all: ReadableSpan[]): string[] {
  const names: string[] = [];
  for (let parent = span.parentSpanContext?.spanId; parent;) {
    const found = all.find((s) => s.spanContext().spanId === parent);
    if (!found) break;
    names.push(found.name);
    parent = found.parentSpanContext?.spanId;
  }
  return names;
}

describe('OpenTelemetry spans of a run', () => {
  const envs: TestWorker[] = [];
  afterAll(async () => {
    for (const env of envs) await env.stop();
  });

  it('traces a 2-step run with one tool call by the GenAI conventions, without secrets or prompt text', async () => {
    const { env, exporter } = await tracedWorker(false);
    envs.push(env);
    const handle = await env.agents.start('support', PROMPT, { tenant: 'acme' });
    const result = await handle.result();
    expect(result.output).toBe('The account is active.');
    const spans = await traceOf(exporter, 'support');
    const named = (prefix: string) => spans.filter((s) => s.name.startsWith(prefix));

    const [run] = named('invoke_agent ');
    const chats = named('chat ');
    const tools = named('execute_tool ');
    expect(named('invoke_agent ')).toHaveLength(1);
    expect(chats.map((s) => s.name)).toEqual(['chat scripted', 'chat scripted']);
    expect(tools.map((s) => s.name)).toEqual(['execute_tool account']);

    // The client's start span is the root: the trace crossed client → workflow → activities.
    expect(ancestors(run!, spans)).toEqual(['RunWorkflow:agentRun', 'StartWorkflow:agentRun']);
    for (const step of [...chats, ...tools]) {
      const chain = ancestors(step, spans);
      expect(chain.slice(0, 3)).toEqual([
        // The first model step is taken by the run's opening step (openRun).
        expect.stringMatching(/^RunActivity:(openRun|callModel|invokeTool)$/),
        expect.stringMatching(/^StartActivity:(openRun|callModel|invokeTool)$/),
        'invoke_agent support',
      ]);
    }

    expect(run!.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support',
      'gen_ai.conversation.id': handle.workflowId,
      'gen_ai.request.model': 'scripted',
      'gen_ai.usage.input_tokens': 31,
      'gen_ai.usage.output_tokens': 8,
      'toolkit_agent.tenant': 'acme',
    });
    expect(chats[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'scripted',
      'gen_ai.request.model': 'scripted',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 3,
      'gen_ai.response.finish_reasons': ['tool_call'],
    });
    expect(chats[1]!.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 20,
      'gen_ai.usage.output_tokens': 5,
    });
    expect(tools[0]!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'account',
      'gen_ai.tool.call.id': 'call_account',
      'gen_ai.agent.name': 'support',
    });
    for (const span of [run!, ...chats, ...tools]) expect(span.status.code).not.toBe(SpanStatusCode.ERROR);

    const everything = JSON.stringify(spans.map((s) => [s.name, s.attributes, s.events, s.status, s.links]));
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain('PROMPT-CANARY');
    expect(everything).not.toContain('gen_ai.input.messages');
  });

  it('records prompts, answers, arguments and (redacted) results with recordContent; marks failures', async () => {
    const { env, exporter } = await tracedWorker(true);
    envs.push(env);
    await env.agents.run('support', PROMPT);
    const spans = await traceOf(exporter, 'support');
    const chats = spans.filter((s) => s.name === 'chat scripted');
    const input = JSON.parse(chats[0]!.attributes['gen_ai.input.messages'] as string) as Array<{
      role: string;
      parts: Array<{ content?: string }>;
    }>;
    expect(input.find((m) => m.role === 'user')!.parts[0]!.content).toBe(PROMPT);
    expect(JSON.parse(chats[1]!.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'The account is active.' }] },
    ]);
    const tool = spans.find((s) => s.name === 'execute_tool account')!;
    expect(JSON.parse(tool.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ id: 'acct-7' });
    expect(tool.attributes['gen_ai.tool.call.result']).toMatch(
      /^account acct-7 is active \(token \[REDACTED\]\)$/,
    );
    expect(JSON.stringify(spans.map((s) => [s.attributes, s.events]))).not.toContain(SECRET);

    await env.agents.run('failing', 'Try the failing tool');
    const failed = await traceOf(exporter, 'failing');
    const failedTool = failed.find((s) => s.name === 'execute_tool failing')!;
    expect(failedTool.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'the upstream is down' });
    expect(failedTool.attributes['error.type']).toBe('Error');
  });
});
