import { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { RunFailedError } from '../../src/errors.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { AddTool } from './tools.ts';
import { collect, ONE_TOOL_CALL_RUN, startTestWorker, type TestWorker } from './helpers.ts';

/**
 * A run with one tool call, finished, and then no worker left on its task queue; `reader` is the
 * same run seen by a client that counts the queries answered. Without a worker no query is answered:
 * reading a closed run complete with none answered proves it was read from what the run carries
 * (and waited for no query), however slow the machine.
 */
async function closedRunWithoutWorker(model = addingModel()) {
  const env = await startTestWorker({ adder: { llm: model, tools: [new AddTool()] } });
  const handle = await env.agents.start('adder', 'add 2 and 3');
  const counted = countingQueries(env);
  return { env, handle, reader: counted.agents.getHandle(handle.workflowId), queries: counted.queries };
}

/**
 * A client of the test's server that counts the queries a worker answered (a reader may send one
 * before it learns the run has closed; it drops it when the result arrives).
 */
function countingQueries(env: TestWorker): { agents: AgentClient; queries: () => number } {
  let queries = 0;
  const client = new Client({
    connection: env.client.connection,
    namespace: env.client.options.namespace,
    interceptors: {
      workflow: [
        {
          query: async (input, next) => {
            const answer = await next(input);
            queries += 1;
            return answer;
          },
        },
      ],
    },
  });
  return { agents: new AgentClient({ client, taskQueue: env.taskQueue }), queries: () => queries };
}

function addingModel(): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'call_add' }] },
    { text: 'The sum is 5.' },
  ]);
}

describe("a closed run's events, with no worker alive", () => {
  it('a live reader that fell behind ends at once after the result, from the events the result carries', async () => {
    const { env, handle, reader, queries } = await closedRunWithoutWorker();
    const stream = reader.events();
    // The reader reads run_started, then falls behind while the run finishes and its worker goes away.
    const first = (await stream.next()).value as AgentEvent;
    expect(first).toMatchObject({ seq: 1, type: 'run_started' });
    expect((await handle.result()).output).toBe('The sum is 5.');
    await env.stopWorker();

    const asked = queries();
    const rest = await collect({ [Symbol.asyncIterator]: () => stream });
    expect([first, ...rest].map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    expect(rest.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6]);
    // The rest came from the result: no query was answered for it (no worker could).
    expect(queries()).toBe(asked);
    await env.stop();
  }, 60_000);

  it('events() and listEvents() read a closed run complete and in order without any worker', async () => {
    const { env, handle, reader, queries } = await closedRunWithoutWorker();
    await handle.result();
    await env.stopWorker();

    const streamed = await collect(reader.events());
    expect(streamed.map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    expect(streamed.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(streamed.at(-1)!.payload.output).toBe('The sum is 5.');
    expect((await reader.listEvents()).map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    expect((await reader.listEvents({ afterSeq: 4 })).map((e) => e.seq)).toEqual([5, 6]);
    expect(queries()).toBe(0);
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

    const { agents, queries } = countingQueries(env);
    const reader = agents.getHandle(handle.workflowId);
    const events: AgentEvent[] = [];
    const failure = await (async () => {
      for await (const event of reader.events()) events.push(event);
    })().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(events.map((e) => e.type)).toEqual(['run_started', 'step_started']);
    expect(failure).toBeInstanceOf(RunFailedError);
    expect((failure as Error).message).toMatch(/the provider refused the request/);
    expect((await reader.listEvents()).map((e) => e.seq)).toEqual([1, 2]);
    // Read from the failure itself: no query was answered (no worker could).
    expect(queries()).toBe(0);
    await env.stop();
  }, 60_000);
});
