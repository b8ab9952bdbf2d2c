import { createOpenAI } from '@ai-sdk/openai';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent } from '../../src/common/events.ts';
import { ControlRefusedError } from '../../src/errors.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { startOpenAIChatServer } from '../support/providers/openai-chat-server.ts';
import type { ProviderServer } from '../support/providers/scripted-provider.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

/** Waits until its signal fires (or a minute passes) and records what happened. */
class SlowTool extends BaseConnectorTool {
  readonly name = 'slow';
  readonly description = 'A long job that takes minutes';
  readonly parameters = z.object({ job: z.string() });
  readonly started: string[] = [];
  readonly aborted: string[] = [];
  #onStart: (() => void) | undefined;
  readonly running = new Promise<void>((resolve) => (this.#onStart = resolve));

  async run(context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    this.started.push(String(args.job));
    this.#onStart?.();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 60_000);
      context.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        this.aborted.push(String(args.job));
        resolve();
      });
    });
    return { text: `finished ${String(args.job)}`, metadata: {} };
  }
}

describe('controlling a run from outside', () => {
  const workers: TestWorker[] = [];
  const servers: ProviderServer[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const server of servers) await server.close();
  });

  it('cancels a run during a slow tool call: the signal fires, run_cancelled is last, the call is answered', async () => {
    const slow = new SlowTool();
    const llm = new ScriptedModel([
      { text: 'Starting the job.', toolCalls: [{ name: 'slow', args: { job: 'report' }, id: 'slow_1' }] },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [slow] } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Run the report job');
    const events: AgentEvent[] = [];
    const reading = (async () => {
      for await (const event of handle.events()) events.push(event);
    })();
    await slow.running;
    await handle.cancel('the user pressed stop');
    const result = await handle.result();
    await reading;

    expect(slow.aborted).toEqual(['report']);
    expect(result.output).toBe('Starting the job.');
    expect(result.metadata).toMatchObject({ stop_reason: 'cancelled', iterations: 1 });
    expect(events.at(-1)).toMatchObject({
      type: 'run_cancelled',
      payload: { stop_reason: 'cancelled', reason: 'the user pressed stop', output: 'Starting the job.' },
    });
    expect(events.map((e) => e.type)).not.toContain('tool_completed');
    const stored = await env.memoryStore.read(handle.workflowId);
    expect(stored.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'slow_1',
      toolName: 'slow',
      content: 'Cancelled: the user pressed stop',
      isError: true,
    });
    // A finished run refuses a second cancel, clearly.
    await expect(handle.cancel()).rejects.toThrow(ControlRefusedError);
    llm.assertAllStepsUsed();
  });

  it('cancels a chat turn; the session goes on and a provider that checks pairing accepts the conversation', async () => {
    const slow = new SlowTool();
    const server = await startOpenAIChatServer([
      { text: 'Let me run it.', toolCalls: [{ id: 'call_slow', name: 'slow', args: { job: 'export' } }] },
      { text: 'Sure: 2 + 2 = 4.' },
    ]);
    servers.push(server);
    const llm = createOpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1` }).chat('gpt-test');
    const env = await startTestWorker({ chatty: { llm, tools: [slow] } });
    workers.push(env);
    const session = env.agents.chatSession('chatty');
    await expect(session.cancelTurn()).rejects.toThrow(/No turn is running|already ended/);

    const first = session.send('Export everything');
    await slow.running;
    await session.cancelTurn('changed my mind');
    const turn1 = await first;
    expect(turn1.metadata.stop_reason).toBe('cancelled');
    expect(slow.aborted).toEqual(['export']);

    const turn2 = await session.send('Then just add 2 and 2');
    expect(turn2).toMatchObject({
      output: 'Sure: 2 + 2 = 4.',
      turn: 2,
      metadata: { stop_reason: 'completed' },
    });
    // The provider saw the cancelled call answered before the next user message (and refused nothing).
    const second = server.bodies.at(-1)!.messages as Array<{
      role: string;
      tool_call_id?: string;
      content?: string;
    }>;
    expect(second.slice(-3).map((m) => m.role)).toEqual(['assistant', 'tool', 'user']);
    expect(second.at(-2)).toMatchObject({ tool_call_id: 'call_slow' });
    expect(server.turns).toHaveLength(0);
  });

  it('ends a run at its deadline and another at its tool-call budget', async () => {
    const slow = new SlowTool();
    const add = new AddTool();
    const env = await startTestWorker({
      slowpoke: {
        llm: new ScriptedModel([{ toolCalls: [{ name: 'slow', args: { job: 'forever' } }] }]),
        tools: [slow],
      },
      adder: {
        llm: new ScriptedModel([
          { text: 'First sum.', toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
          {
            toolCalls: [
              { name: 'add', args: { a: 3, b: 4 } },
              { name: 'add', args: { a: 5, b: 6 } },
            ],
          },
        ]),
        tools: [add],
      },
    });
    workers.push(env);

    const late = await env.agents.start('slowpoke', 'Do the long job', { timeoutMs: 1500 });
    const lateEvents = await collect(late.events());
    const lateResult = await late.result();
    expect(lateResult.metadata.stop_reason).toBe('deadline');
    expect(slow.aborted).toEqual(['forever']);
    expect(lateEvents.at(-1)).toMatchObject({ type: 'run_cancelled', payload: { stop_reason: 'deadline' } });

    const counted = await env.agents.start('adder', 'Add three pairs', { limits: { maxToolCalls: 2 } });
    const countedEvents = await collect(counted.events());
    const countedResult = await counted.result();
    expect(countedResult.metadata).toMatchObject({ stop_reason: 'budget', iterations: 2 });
    expect(add.ran).toEqual([{ a: 1, b: 2 }]); // the step that would pass 2 calls did not run
    expect(countedEvents.at(-1)).toMatchObject({
      type: 'run_completed',
      payload: {
        stop_reason: 'budget',
        reason: expect.stringContaining('budget of 2 tool calls') as unknown,
      },
    });
    const stored = await env.memoryStore.read(counted.workflowId);
    expect(stored.slice(-2).map((m) => m.role)).toEqual(['tool', 'tool']);
  });

  it('stops before the model step that would pass the token budget', async () => {
    const add = new AddTool();
    const usage = { input_tokens: 400, output_tokens: 100, total_tokens: 500 };
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }], usage },
      { text: 'never asked', usage },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [add], limits: { maxTotalTokens: 900 } } });
    workers.push(env);
    const result = await env.agents.run('agent', 'Add', {});
    expect(result.metadata).toMatchObject({ stop_reason: 'budget', iterations: 1 });
    expect(llm.remaining).toBe(1);
    expect(add.ran).toHaveLength(1);
  });
});
