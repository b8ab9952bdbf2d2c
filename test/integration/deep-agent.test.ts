import { afterEach, describe, expect, inject, it } from 'vitest';
import { DeepAgent } from '../../src/agent/deep-agent.ts';
import type { DeepAgentResult } from '../../src/common/deep.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { AddTool } from './tools.ts';
import { collect } from './helpers.ts';

describe('DeepAgent', () => {
  const agents: DeepAgent[] = [];
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.close();
  });
  function make(llm: ScriptedModel, verify: boolean): DeepAgent {
    const agent = DeepAgent.withBuiltins({
      llm,
      verify,
      tools: [new AddTool()],
      memoryStore: new InMemoryMemoryStore(),
      autoProjectSkills: false,
      temporal: { address: inject('temporalAddress'), taskQueue: `deep-${agents.length}-${Date.now()}` },
    });
    agents.push(agent);
    return agent;
  }

  it('plans, executes, and revises once when the check fails; metadata and events record it', async () => {
    const llm = new ScriptedModel([
      { text: '1. Add 2 and 2 with the add tool.\n2. Report the sum.' },
      { toolCalls: [{ name: 'add', args: { a: 2, b: 2 }, id: 'add_1' }] },
      { text: 'The sum is 5.' },
      { text: 'FAIL\nThe add tool returned 4, not 5.' },
      { text: 'The sum is 4.' },
    ]);
    const agent = make(llm, true);
    const events = await collect(agent.stream('What is 2 + 2?'));
    const done = events.at(-1)!;
    expect(done).toMatchObject({
      type: 'run_completed',
      payload: {
        output: 'The sum is 4.',
        plan: '1. Add 2 and 2 with the add tool.\n2. Report the sum.',
        verification: { verdict: 'fail', feedback: 'The add tool returned 4, not 5.', revised: true },
      },
    });
    expect(done.payload.phase).toBeUndefined();
    const phases = events
      .filter((e) => e.type === 'run_completed' && e.payload.phase)
      .map((e) => e.payload.phase);
    expect(phases).toEqual(['plan', 'execute', 'verify', 'revise']);

    // The plan and the check are written without tools; execution follows the plan; the revision sees it all.
    expect(llm.calls[0]!.tools).toEqual([]);
    expect(llm.calls[1]!.tools.map((t) => t.function.name)).toEqual(['add']);
    expect(llm.calls[1]!.messages.at(-1)!.content).toContain('Follow this plan:\n1. Add 2 and 2');
    expect(llm.calls[3]!.tools).toEqual([]);
    expect(llm.calls[3]!.messages.at(-1)!.content).toMatch(
      /Task:\nWhat is 2 \+ 2\?\n\nAnswer:\nThe sum is 5\./,
    );
    const revision = llm.calls[4]!.messages;
    expect(revision.some((m) => m.role === 'tool' && m.content === '4')).toBe(true);
    expect(revision.at(-1)!.content).toMatch(/found problems:\nThe add tool returned 4, not 5\./);
    llm.assertAllStepsUsed();
  });

  it('keeps the answer when the check passes, and skips the check without verify', async () => {
    const passing = new ScriptedModel([{ text: '1. Answer.' }, { text: 'Four.' }, { text: 'PASS' }]);
    const checked = (await make(passing, true).run('What is 2 + 2?')) as DeepAgentResult;
    expect(checked.output).toBe('Four.');
    expect(checked.metadata.verification).toEqual({ verdict: 'pass', feedback: '', revised: false });

    const unchecked = (await make(new ScriptedModel([{ text: '1. Answer.' }, { text: 'Four.' }]), false).run(
      '2 + 2?',
    )) as DeepAgentResult;
    expect(unchecked.metadata).toMatchObject({
      plan: '1. Answer.',
      verification: { verdict: 'skipped', revised: false },
    });
  });
});
