import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { AddTool, BrokenTool } from './tools.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

describe('an agent with toolSearch', () => {
  const llm = new ScriptedModel([
    { toolCalls: [{ name: 'tool_search', args: { query: 'add two numbers' }, id: 'search_1' }] },
    { toolCalls: [{ name: 'add', args: { a: 20, b: 22 }, id: 'add_1' }] },
    { text: '42' },
  ]);
  let env: TestWorker;
  beforeAll(async () => {
    env = await startTestWorker({
      many: { llm, tools: [new BrokenTool(), new AddTool()], toolSearch: true },
    });
  });
  afterAll(() => env?.stop());

  it('shows only tool_search at first and gives the model the tools it found from the next step on', async () => {
    const handle = await env.agents.start('many', 'What is 20 + 22?');
    const events = await collect(handle.events());
    expect((await handle.result()).output).toBe('42');

    const toolsPerStep = llm.calls.map((call) => call.tools.map((t) => t.function.name));
    expect(toolsPerStep[0]).toEqual(['tool_search']);
    expect(toolsPerStep[1]).toEqual(['tool_search', 'add']);
    expect(toolsPerStep[2]).toEqual(['tool_search', 'add']);
    const found = events.find((e) => e.type === 'tool_completed' && e.payload.call_id === 'search_1');
    expect(found?.payload.metadata).toEqual({ matches: ['add'] });
    expect(
      events.find((e) => e.type === 'tool_completed' && e.payload.call_id === 'add_1')?.payload.output,
    ).toBe('42');
  });
});
