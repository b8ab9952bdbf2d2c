import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';

const slowly = (text: string) => async () => {
  await sleep(400);
  return { text };
};

describe('event cursors of a live run with sub-agents', () => {
  let env: TestWorker | undefined;
  afterAll(async () => {
    await env?.stop();
  });

  it('resumes from a cursor inside a running child exactly: no event twice, none missed, ids increasing', async () => {
    env = await startTestWorker({
      lead: {
        llm: new ScriptedModel([
          {
            toolCalls: [
              { name: 'agent_helper', args: { task: 'first' }, id: 'h1' },
              { name: 'agent_helper', args: { task: 'second' }, id: 'h2' },
            ],
          },
          { text: 'Both done.' },
        ]),
        subAgents: { helper: 'helper' },
      },
      // Each child answers after 400 ms: a reader can stop inside one while it runs.
      helper: { llm: new ScriptedModel([slowly('one'), slowly('two')]) },
    });
    const handle = await env.agents.start('lead', 'Ask twice');
    // A reader that stops inside the first child, while it runs.
    const seen: AgentEvent[] = [];
    for await (const event of handle.events()) {
      seen.push(event);
      if (event.payload.sub_run !== undefined && event.type === 'step_started') break;
    }
    const stoppedAt = seen.at(-1)!.cursor!;
    expect(stoppedAt).toMatch(/^\d+\/\d+$/);
    const rest = await collect(handle.events({ after: stoppedAt }));
    const all = await collect(handle.events());
    const key = (e: AgentEvent) => `${e.cursor} ${e.type} ${JSON.stringify(e.payload.sub_run ?? null)}`;
    expect([...seen, ...rest].map(key)).toEqual(all.map(key));
    const order = all.map((e) =>
      e
        .cursor!.split('/')
        .map((seq) => seq.padStart(6, '0'))
        .join('/'),
    );
    expect([...order].sort()).toEqual(order);
    expect(new Set(order).size).toBe(order.length);
    expect(all.filter((e) => e.payload.sub_run !== undefined && e.type === 'run_completed')).toHaveLength(2);
    expect(all.at(-1)).toMatchObject({ type: 'run_completed', payload: { output: 'Both done.' } });
  });
});
