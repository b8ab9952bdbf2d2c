import { afterAll, describe, expect, it } from 'vitest';
import { ToolkitError } from '../../src/errors.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { activitiesIn, collect, ONE_TOOL_CALL_RUN, startTestWorker, type TestWorker } from './helpers.ts';
import { z } from 'zod';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';
import { AddTool, BrokenTool } from './tools.ts';

/** A fast tool that offers the model another tool from its next step on (as `tool_search` does). */
class OfferAddTool extends BaseConnectorTool {
  readonly name = 'offer_add';
  readonly description = 'Makes the add tool available';
  readonly parameters = z.object({});
  override readonly fast = true;

  async run(): Promise<ToolOutput> {
    return { text: 'add is yours now', metadata: {}, loadTools: ['add'] };
  }
}

/** Fast calls ride with the next model step (src/fast-tools/carried-calls.ts): what that keeps and saves. */

describe('fast calls carried by the next model step', () => {
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it('says what became of the calls before the next step’s live text, while the model still writes', async () => {
    const add = new AddTool({ fast: true });
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'add_1' }] },
      async (request: ModelRequest) => {
        // A model that thinks for over a second, then writes: the call's result is told meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 1_300));
        request.onTextDelta?.('The sum ');
        await new Promise((resolve) => setTimeout(resolve, 300));
        request.onTextDelta?.('is 5.');
        return { text: 'The sum is 5.' };
      },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [add], liveText: { batchMs: 50 } } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Add 2 and 3');
    expect((await handle.result()).output).toBe('The sum is 5.');
    const types = (await collect(handle.events())).map((e) => e.type);
    const firstDelta = types.indexOf('text_delta');
    expect(firstDelta).toBeGreaterThan(0);
    expect(types.slice(0, firstDelta)).toEqual(ONE_TOOL_CALL_RUN.slice(0, -1));
    expect(types.filter((type) => type === 'tool_completed')).toHaveLength(1);
    expect(types.at(-1)).toBe('run_completed');
    // The outcome came in a live-text signal of its own a second into the step, ahead of its text.
    const history = (await handle.workflow.fetchHistory()).events ?? [];
    const signals = history.filter((e) => e.workflowExecutionSignaledEventAttributes);
    expect(signals.length).toBeGreaterThan(0);
    const first = signals[0]!.workflowExecutionSignaledEventAttributes!.input!.payloads![0]!.data!;
    expect(JSON.parse(Buffer.from(first).toString())).toMatchObject({
      text: '',
      settled: [{ callId: 'add_1', outcome: { preview: '5' } }],
    });
    expect(add.ran).toEqual([{ a: 2, b: 3 }]);
  });

  it('takes the step again as a step of its own when the model fails after the calls ran: each call ran once', async () => {
    const add = new AddTool({ fast: true });
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'add_1' }] },
      () => {
        throw new ToolkitError('PROVIDER', 'The provider is overloaded (529).', { retryable: true });
      },
      { text: 'three' },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [add] } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Add 1 and 2');
    expect((await handle.result()).output).toBe('three');
    expect(add.ran).toEqual([{ a: 1, b: 2 }]);
    expect(llm.calls[2]!.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'add_1',
      toolName: 'add',
      content: '3',
    });
    expect((await collect(handle.events())).map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    const history = (await handle.workflow.fetchHistory()).events ?? [];
    // The opening step (the run resolved, its first model step taken), the step that carried the
    // call (not taken), and the step taken again.
    const { scheduled, localMarkers } = activitiesIn(history);
    expect(scheduled).toEqual(['openRun', 'callModel', 'callModel']);
    expect(localMarkers).toBe(0);
  });

  it('runs fast calls as local activities when the same step asks for a tool that is not fast', async () => {
    const add = new AddTool({ fast: true });
    const broken = new BrokenTool();
    const llm = new ScriptedModel([
      {
        toolCalls: [
          { name: 'add', args: { a: 4, b: 4 }, id: 'add_1' },
          { name: 'broken', args: {}, id: 'broken_1' },
        ],
      },
      { text: 'eight, and the upstream is down' },
    ]);
    const env = await startTestWorker({
      agent: { llm, tools: [add, broken], timeouts: { toolMaxAttempts: 1 } },
    });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Add 4 and 4, and call the upstream');
    expect((await handle.result()).output).toBe('eight, and the upstream is down');
    expect(add.ran).toEqual([{ a: 4, b: 4 }]);
    const history = (await handle.workflow.fetchHistory()).events ?? [];
    const { scheduled, localMarkers } = activitiesIn(history);
    expect(scheduled.filter((type) => type === 'invokeTool')).toHaveLength(1);
    // The fast call (the run was resolved by its opening step).
    expect(localMarkers).toBe(1);
    expect(llm.calls[1]!.messages.slice(-2)).toMatchObject([
      { role: 'tool', toolCallId: 'add_1', content: '8' },
      { role: 'tool', toolCallId: 'broken_1', isError: true },
    ]);
  });

  it('leaves the model to a step of its own when a carried call offers new tools, so the model sees them', async () => {
    const add = new AddTool();
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'offer_add', args: {}, id: 'offer_1' }] },
      { toolCalls: [{ name: 'add', args: { a: 5, b: 6 }, id: 'add_1' }] },
      { text: 'eleven' },
    ]);
    const env = await startTestWorker({
      agent: { llm, tools: [new OfferAddTool(), add], toolSearch: { alwaysLoaded: ['offer_add'] } },
    });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Add 5 and 6');
    expect((await handle.result()).output).toBe('eleven');
    expect(llm.calls[0]!.tools.map((tool) => tool.function.name)).not.toContain('add');
    // The step that carried offer_add did not ask the model; the step taken after it offers add.
    expect(llm.calls[1]!.tools.map((tool) => tool.function.name)).toContain('add');
    expect(add.ran).toEqual([{ a: 5, b: 6 }]);
    const { scheduled } = activitiesIn((await handle.workflow.fetchHistory()).events ?? []);
    // The opening step; the step that carried offer_add (not taken); the step taken again; add (not
    // fast) as an activity; the answer.
    expect(scheduled).toEqual(['openRun', 'callModel', 'callModel', 'invokeTool', 'callModel']);
  });
});
