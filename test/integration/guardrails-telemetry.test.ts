import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { GuardrailTripped } from '../../src/errors.ts';
import { piiGuardrail } from '../../src/guardrails/pii.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

describe('guardrails in telemetry', () => {
  let env: TestWorker | undefined;
  afterAll(() => env?.stop());

  it('traces each input and output check as a span with its verdict (never what it checked), and a tool check that stopped a call on the call', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    env = await startTestWorker(
      {
        traced: {
          llm: new ScriptedModel([
            { toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'call_add' }] },
            { text: 'Mail me at bob@example.com' },
          ]),
          tools: [new AddTool()],
          guardrails: {
            input: [{ name: 'always_ok', check: () => true }],
            output: [piiGuardrail({ action: 'trip' })],
            tools: [
              {
                name: 'no_adding',
                check: (call) => (call.phase === 'before' ? { reject: 'no' } : undefined),
              },
            ],
          },
        },
      },
      { telemetry: { tracerProvider } },
    );
    const error = await env.agents.run('traced', 'hello').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailTripped);
    await tracerProvider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const checks = spans.filter((s) => s.name.startsWith('guardrail '));
    expect(
      checks.map((s) => [
        s.name,
        s.attributes['toolkit_agent.guardrail.kind'],
        s.attributes['toolkit_agent.guardrail.verdict'],
      ]),
    ).toEqual([
      ['guardrail always_ok', 'input', 'allow'],
      ['guardrail pii', 'output', 'tripwire'],
    ]);
    const tool = spans.find((s) => s.name === 'execute_tool add')!;
    expect(tool.attributes).toMatchObject({
      'toolkit_agent.guardrail.name': 'no_adding',
      'toolkit_agent.guardrail.verdict': 'reject',
      'toolkit_agent.guardrail.phase': 'before',
    });
    expect(JSON.stringify(checks.map((s) => s.attributes))).not.toContain('bob@example.com');
  });
});
