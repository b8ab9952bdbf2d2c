import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import { RunFailedError } from '../../src/errors.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { AddTool } from './tools.ts';
import { collect, ONE_TOOL_CALL_RUN, startTestWorker } from './helpers.ts';

/** A run with one tool call, finished, and then no worker left on its task queue. */
async function closedRunWithoutWorker(model = addingModel()) {
  const env = await startTestWorker({ adder: { llm: model, tools: [new AddTool()] } });
  const handle = await env.agents.start('adder', 'add 2 and 3');
  return { env, handle };
}

function addingModel(): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'call_add' }] },
    { text: 'The sum is 5.' },
  ]);
}

describe("a closed run's events, with no worker alive", () => {
  it('a live reader that fell behind ends at once after the result, from the events the result carries', async () => {
    const { env, handle } = await closedRunWithoutWorker();
    const stream = handle.events();
    // The reader reads run_started, then falls behind while the run finishes and its worker goes away.
    const first = (await stream.next()).value as AgentEvent;
    expect(first).toMatchObject({ seq: 1, type: 'run_started' });
    expect((await handle.result()).output).toBe('The sum is 5.');
    await env.stopWorker();

    const resultAt = Date.now();
    const rest = await collect({ [Symbol.asyncIterator]: () => stream });
    const lagMs = Date.now() - resultAt;
    expect([first, ...rest].map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    expect(rest.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6]);
    expect(lagMs).toBeLessThan(2000);
    await env.stop();
  }, 60_000);

  it('events() and listEvents() read a closed run complete and in order without any worker', async () => {
    const { env, handle } = await closedRunWithoutWorker();
    await handle.result();
    await env.stopWorker();

    const started = Date.now();
    const streamed = await collect(handle.events());
    expect(streamed.map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    expect(streamed.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(streamed.at(-1)!.payload.output).toBe('The sum is 5.');
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await handle.listEvents()).map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    expect((await handle.listEvents({ afterSeq: 4 })).map((e) => e.seq)).toEqual([5, 6]);
    // The result a caller gets is the result alone: the events travel beside it on the wire only.
    expect(Object.keys(await handle.result()).sort()).toEqual(['metadata', 'output']);
    await env.stop();
  }, 60_000);

  it('a failed run carries its events in its failure: read without a worker, then its failure', async () => {
    const failing = new ScriptedModel([
      () => {
        throw new Error('the provider refused the request');
      },
    ]);
    const env = await startTestWorker({
      failing: { llm: failing, tools: [new AddTool()], timeouts: { modelMaxAttempts: 1 } },
    });
    const handle = await env.agents.start('failing', 'add 2 and 3');
    await expect(handle.result()).rejects.toThrow(RunFailedError);
    await env.stopWorker();

    const events: AgentEvent[] = [];
    const started = Date.now();
    const failure = await (async () => {
      for await (const event of handle.events()) events.push(event);
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(events.map((e) => e.type)).toEqual(['run_started', 'step_started']);
    expect(failure).toBeInstanceOf(RunFailedError);
    expect((failure as Error).message).toMatch(/the provider refused the request/);
    expect((await handle.listEvents()).map((e) => e.seq)).toEqual([1, 2]);
    await env.stop();
  }, 60_000);
});
