import { setTimeout as sleep } from 'node:timers/promises';
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import { z } from 'zod';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AgentRunHandle } from '../../src/client/run-handle.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { eventsQuery } from '../../src/common/workflow-definitions.ts';
import { InProcessLiveChannel, type LiveTextChannel } from '../../src/live-text/channel.ts';
import { PostgresLiveChannel } from '../../src/live-text/postgres.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

/** A tool that takes a few seconds, as a slow upstream does: a reader that polls asks meanwhile. */
class SlowTool extends BaseConnectorTool {
  readonly name = 'slow';
  readonly description = 'Looks something up, slowly';
  readonly parameters = z.object({});
  async run(): Promise<ToolOutput> {
    await sleep(3_000);
    return { text: 'found', metadata: {} };
  }
}

/** A tool call, its few seconds, then an answer written live. */
function slowThenWrite(): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ name: 'slow', args: {}, id: 'slow_1' }] },
    async (request: ModelRequest) => {
      for (const word of ['It ', 'was ', 'found.']) {
        request.onTextDelta?.(word);
        await sleep(50);
      }
      return { text: 'It was found.' };
    },
  ]);
}

/** A reader's client that counts the events queries it asks. */
function countingClient(env: TestWorker): { client: Client; queries: () => number } {
  let queries = 0;
  const counter: WorkflowClientInterceptor = {
    async query(input, next) {
      if (input.queryType === eventsQuery.name) queries += 1;
      return next(input);
    },
  };
  const client = new Client({ connection: env.client.connection, interceptors: { workflow: [counter] } });
  return { client, queries: () => queries };
}

/** The channel without its events (as a custom channel of earlier versions): readers poll. */
function textOnly(channel: LiveTextChannel): LiveTextChannel {
  return { publish: (m) => channel.publish(m), subscribe: (id, listener) => channel.subscribe(id, listener) };
}

/** Reads a run to its end; the run's own events (not live text) in order, and the text. */
async function readAll(handle: AgentRunHandle): Promise<{ events: AgentEvent[]; text: string }> {
  const events: AgentEvent[] = [];
  let text = '';
  for await (const event of handle.events()) {
    if (event.type === 'text_delta' && event.cursor?.includes('.')) text += String(event.payload.text);
    else {
      events.push(event);
      if (event.type === 'text_delta') text += String(event.payload.text);
    }
  }
  return { events, text };
}

/** Every event of the run once, in seq order, the tool's start and result among them. */
function expectWhole(events: AgentEvent[]): void {
  const seqs = events.map((event) => event.seq);
  expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
  const types = events.map((event) => event.type).filter((type) => type !== 'text_delta');
  expect(types).toEqual([
    'run_started',
    'step_started',
    'tool_called',
    'tool_completed',
    'step_started',
    'run_completed',
  ]);
}

describe('the run events through the live channel', () => {
  const workers: TestWorker[] = [];
  const channels: PostgresLiveChannel[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const channel of channels) await channel.close();
  });

  async function streamedTurn(workerSide: LiveTextChannel, readers: LiveTextChannel[]) {
    const env = await startTestWorker(
      { finder: { llm: slowThenWrite(), tools: [new SlowTool()] } },
      { liveChannel: workerSide },
    );
    workers.push(env);
    const counted = readers.map(() => countingClient(env));
    const started = await env.agents.startRun('finder', 'Find it');
    const reads = readers.map((channel, i) =>
      readAll(
        new AgentRunHandle(counted[i]!.client.workflow.getHandle(started.workflowId), {
          liveChannel: channel,
        }),
      ),
    );
    const results = await Promise.all(reads);
    return results.map((result, i) => ({ ...result, queries: counted[i]!.queries() }));
  }

  it('a subscribed reader hears the tool call, its result and the end without polling (in process)', async () => {
    const channel = new InProcessLiveChannel();
    // The same turn read through the channel with its events, and through the text alone (as before).
    const [subscribed, polling] = await streamedTurn(channel, [channel, textOnly(channel)]);
    console.log(
      `a streamed turn with a 3 s tool call, in process: ${subscribed!.queries} events queries ` +
        `with the events on the channel, ${polling!.queries} with its text alone`,
    );
    for (const read of [subscribed!, polling!]) {
      expectWhole(read.events);
      expect(read.text).toBe('It was found.');
    }
    expect(subscribed!.queries).toBeLessThanOrEqual(3);
    expect(polling!.queries).toBeGreaterThan(3);
  }, 60_000);

  it('a reader that misses an event on the channel still delivers every event once, in order', async () => {
    const channel = new InProcessLiveChannel();
    let dropped = 0;
    const losing: LiveTextChannel = {
      ...textOnly(channel),
      subscribeEvents: (workflowId, listener) =>
        channel.subscribeEvents(workflowId, (message) => {
          // The tool call's start never arrives: the result after it says one is missing.
          if (message.event?.type === 'tool_called' && dropped++ === 0) return;
          listener(message);
        }),
    };
    const [read] = await streamedTurn(channel, [losing]);
    expect(dropped).toBeGreaterThan(0);
    expectWhole(read!.events);
    expect(read!.text).toBe('It was found.');
  }, 60_000);

  const url = inject('postgresUrl');
  it.skipIf(!url)(
    'a reader on another connection hears them through PostgreSQL',
    async () => {
      const name = `test_live_events_${Date.now()}`;
      const workerSide = new PostgresLiveChannel({ connectionString: url, channel: name });
      const readerSide = new PostgresLiveChannel({ connectionString: url, channel: name });
      channels.push(workerSide, readerSide);
      await readerSide.ready();
      const [read] = await streamedTurn(workerSide, [readerSide]);
      console.log(
        `a streamed turn with a 3 s tool call, through PostgreSQL: ${read!.queries} events queries`,
      );
      expectWhole(read!.events);
      expect(read!.text).toBe('It was found.');
      expect(read!.queries).toBeLessThanOrEqual(3);
    },
    60_000,
  );
});
