import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { AddTool, BrokenTool } from './tools.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

describe('agentRun on a real Temporal server', () => {
  const add = new AddTool();
  const broken = new BrokenTool();
  const models: Record<string, ScriptedModel> = {};
  let env: TestWorker;

  function agent(name: string, model: ScriptedModel, extra: Record<string, unknown> = {}) {
    models[name] = model;
    return { llm: model, tools: [add, broken], ...extra };
  }

  beforeAll(async () => {
    env = await startTestWorker({
      twoCalls: agent(
        'twoCalls',
        new ScriptedModel([
          {
            toolCalls: [
              { name: 'add', args: { a: 1, b: 2 }, id: 'call_a' },
              { name: 'add', args: { a: 10, b: 20 }, id: 'call_b' },
            ],
          },
          { text: 'The sums are 3 and 30.', usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 } },
        ]),
      ),
      throwing: agent(
        'throwing',
        new ScriptedModel([
          { toolCalls: [{ name: 'broken', args: {}, id: 'call_x' }] },
          { text: 'It is down.' },
        ]),
        { timeouts: { toolMaxAttempts: 2 } },
      ),
      invalid: agent(
        'invalid',
        new ScriptedModel([
          { toolCalls: [{ name: 'add', args: { a: 'one', b: 2 }, id: 'call_bad' }] },
          { text: 'I gave bad arguments.' },
        ]),
      ),
      looping: agent(
        'looping',
        new ScriptedModel(
          Array.from({ length: 8 }, (_, i) => ({
            text: `step ${i + 1}`,
            toolCalls: [{ name: 'add', args: { a: i, b: 0 } }],
          })),
        ),
      ),
      loopingLimited: agent(
        'loopingLimited',
        new ScriptedModel(
          Array.from({ length: 2 }, (_, i) => ({
            text: `step ${i + 1}`,
            toolCalls: [{ name: 'add', args: { a: i, b: 0 } }],
          })),
        ),
      ),
    });
  });
  afterAll(() => env?.stop());

  it('emits the events of two tool calls in one step, in order, and pairs results by id', async () => {
    const handle = await env.agents.start('twoCalls', 'Add 1+2 and 10+20');
    const events = await collect(handle.events());
    const result = await handle.result();

    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]).toMatchObject({ type: 'run_started' });
    expect(events[1]).toMatchObject({ type: 'step_started', payload: { iteration: 1 } });
    const toolEvents = events.slice(2, 6);
    expect(toolEvents.filter((e) => e.type === 'tool_called').map((e) => e.payload)).toEqual([
      { tool: 'add', call_id: 'call_a', args: { a: 1, b: 2 } },
      { tool: 'add', call_id: 'call_b', args: { a: 10, b: 20 } },
    ]);
    for (const id of ['call_a', 'call_b']) {
      const called = toolEvents.findIndex((e) => e.type === 'tool_called' && e.payload.call_id === id);
      const completed = toolEvents.findIndex((e) => e.type === 'tool_completed' && e.payload.call_id === id);
      expect(called).toBeGreaterThanOrEqual(0);
      expect(completed).toBeGreaterThan(called);
    }
    const completed = toolEvents.filter((e) => e.type === 'tool_completed');
    expect(Object.fromEntries(completed.map((e) => [e.payload.call_id, e.payload.output]))).toEqual({
      call_a: '3',
      call_b: '30',
    });
    expect(completed.every((e) => /^add completed/.test(e.message))).toBe(true);
    expect(events[6]).toMatchObject({ type: 'step_started', payload: { iteration: 2 } });
    expect(events[7]).toMatchObject({ type: 'run_completed', payload: { output: 'The sums are 3 and 30.' } });
    expect(events).toHaveLength(8);

    expect(result.output).toBe('The sums are 3 and 30.');
    expect(result.metadata).toMatchObject({
      iterations: 2,
      stop_reason: 'completed',
      workflow_id: handle.workflowId,
      used_skills: [],
      used_skill_tools: [],
      usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 },
    });
    expect(result.metadata.run_id).toMatch(/[0-9a-f-]{36}/);

    const secondRequest = models.twoCalls!.calls[1]!;
    expect(secondRequest.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'call_a', name: 'add', args: { a: 1, b: 2 } },
          { id: 'call_b', name: 'add', args: { a: 10, b: 20 } },
        ],
      },
      { role: 'tool', toolCallId: 'call_a', toolName: 'add', content: '3' },
      { role: 'tool', toolCallId: 'call_b', toolName: 'add', content: '30' },
    ]);
    expect(secondRequest.tools.map((t) => t.function.name)).toEqual(['add', 'broken']);
    expect(secondRequest.tools[0]!.function.parameters).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    models.twoCalls!.assertAllStepsUsed();
  });

  it('reports a throwing tool as tool_failed, retries it, hands the error to the model and completes', async () => {
    const before = broken.calls;
    const handle = await env.agents.start('throwing', 'Check the service');
    const events = await collect(handle.events());
    const result = await handle.result();

    expect(broken.calls - before).toBe(2);
    const failed = events.find((e) => e.type === 'tool_failed');
    expect(failed).toMatchObject({
      payload: { tool: 'broken', call_id: 'call_x', error: 'upstream said no', error_type: 'Error' },
    });
    expect(failed!.message).toContain('upstream said no');
    expect(events.some((e) => e.type === 'tool_completed')).toBe(false);
    expect(models.throwing!.calls[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call_x',
      toolName: 'broken',
      content: 'Error (Error): upstream said no',
      isError: true,
    });
    expect(result).toMatchObject({
      output: 'It is down.',
      metadata: { stop_reason: 'completed', iterations: 2 },
    });
  });

  it('refuses invalid arguments with the schema, tells the model, and never runs the tool', async () => {
    const ranBefore = add.ran.length;
    const handle = await env.agents.start('invalid', 'Add one and two');
    const events = await collect(handle.events());
    await handle.result();

    expect(add.ran.length).toBe(ranBefore);
    const failed = events.find((e) => e.type === 'tool_failed')!;
    expect(failed.payload).toMatchObject({ tool: 'add', call_id: 'call_bad', error_type: 'ToolInputError' });
    expect(failed.payload.error).toMatch(/Invalid arguments for add[\s\S]*expected number[\s\S]*\ba\b/);
    const toolResult = models.invalid!.calls[1]!.messages.at(-1)!;
    expect(toolResult).toMatchObject({ role: 'tool', toolCallId: 'call_bad', isError: true });
    expect(toolResult.content).toContain('Invalid arguments for add');
  });

  it('stops at the default of 4 iterations with stop_reason max_iterations and the last text', async () => {
    const result = await env.agents.run('looping', 'Loop forever');
    expect(result.output).toBe('step 4');
    expect(result.metadata).toMatchObject({ stop_reason: 'max_iterations', iterations: 4 });
    expect(models.looping!.calls).toHaveLength(4);
    // The calls of the last step were not run, yet the stored conversation stays paired.
    const conversation = await env.memoryStore.read(result.metadata.workflow_id);
    const last = conversation.at(-1);
    expect(last).toMatchObject({ role: 'tool', isError: true });
    expect(last?.content).toMatch(/limit of 4/);
  });

  it('keeps an explicit maxIterations', async () => {
    const result = await env.agents.run('loopingLimited', 'Loop', { maxIterations: 2 });
    expect(result.metadata).toMatchObject({ stop_reason: 'max_iterations', iterations: 2 });
    expect(result.output).toBe('step 2');
    models.loopingLimited!.assertAllStepsUsed();
  });
});
