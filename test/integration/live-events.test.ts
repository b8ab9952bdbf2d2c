import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import {
  InProcessLiveChannel,
  type LiveEventMessage,
  type LiveTextChannel,
} from '../../src/live-text/channel.ts';
import { PostgresLiveChannel } from '../../src/live-text/postgres.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { expectOneToolCallRun, readRun, textOnly } from '../support/event-readers.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { TokenTool } from './tools.ts';
import { SlowTool } from '../support/slow-tool.ts';

const CANARY = 'sk-canary-live-events-7f3a2c';

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

describe('the run events through the live channel', () => {
  const workers: TestWorker[] = [];
  const channels: PostgresLiveChannel[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const channel of channels) await channel.close();
  });

  /** A run with a 3 s tool call, then an answer written live, read by one reader per channel given. */
  async function streamedTurn(workerSide: LiveTextChannel, readers: LiveTextChannel[]) {
    const env = await startTestWorker(
      { finder: { llm: slowThenWrite(), tools: [new SlowTool()] } },
      { liveChannel: workerSide },
    );
    workers.push(env);
    const started = await env.agents.startRun('finder', 'Find it');
    return Promise.all(readers.map((channel) => readRun(env.client.connection, started.workflowId, channel)));
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
      expectOneToolCallRun(read.events);
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
    expectOneToolCallRun(read!.events);
    // The start, then the run read once more for the missing event (the end comes with the answer).
    expect(read!.queries).toBe(2);
    expect(read!.text).toBe('It was found.');
  }, 60_000);

  it('says no secret on the channel: a tool that reads one has its result redacted there as in the run', async () => {
    const channel = new InProcessLiveChannel();
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'upstream', type: 'bearer', token: CANARY });
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'token', args: {}, id: 't1' }] },
      { text: 'I read it.' },
    ]);
    const env = await startTestWorker(
      { keeper: { llm, tools: [new TokenTool()], credentialStore } },
      { liveChannel: channel },
    );
    workers.push(env);
    const started = await env.agents.startRun('keeper', 'Read the token');
    const said: LiveEventMessage[] = [];
    const unsubscribe = channel.subscribeEvents(started.workflowId, (message) => said.push(message));
    const read = await readRun(env.client.connection, started.workflowId, channel);
    unsubscribe();
    expect(said.map((message) => message.event?.type)).toContain('tool_completed');
    expect(read.events.map((event) => event.type)).toContain('tool_completed');
    expect(JSON.stringify(said)).not.toContain(CANARY);
    expect(JSON.stringify(read.events)).not.toContain(CANARY);
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
      expectOneToolCallRun(read!.events);
      expect(read!.text).toBe('It was found.');
      expect(read!.queries).toBeLessThanOrEqual(3);
    },
    60_000,
  );

  it.skipIf(!url)(
    'says an event too large for a notification by its seq alone, in order with the rest',
    async () => {
      const name = `test_live_events_big_${Date.now()}`;
      const workerSide = new PostgresLiveChannel({ connectionString: url, channel: name });
      const readerSide = new PostgresLiveChannel({ connectionString: url, channel: name });
      channels.push(workerSide, readerSide);
      const heard: LiveEventMessage[] = [];
      readerSide.subscribeEvents('big', (message) => heard.push(message));
      await readerSide.ready();
      const event = (seq: number, text: string): AgentEvent => ({
        seq,
        type: 'tool_completed',
        message: 'done',
        payload: { text },
        timestamp: new Date().toISOString(),
      });
      const said = [event(1, 'small'), event(2, 'x'.repeat(10_000)), event(3, 'small again')];
      for (const one of said)
        workerSide.publishEvent({ workflowId: 'big', runId: 'r', seq: one.seq, event: one });
      await expect.poll(() => heard.length, { timeout: 10_000 }).toBe(3);
      expect(heard.map((message) => message.seq)).toEqual([1, 2, 3]);
      expect(heard[0]!.event).toEqual(said[0]);
      expect(heard[1]!.event).toBeUndefined();
      expect(heard[2]!.event).toEqual(said[2]);
    },
  );
});
