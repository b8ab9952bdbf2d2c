import { afterAll, describe, expect, inject, it } from 'vitest';
import { AgentRunHandle } from '../../src/client/run-handle.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { TEXT_DELTA_SIGNAL } from '../../src/common/control.ts';
import type { LiveTextChannel } from '../../src/live-text/channel.ts';
import { PostgresLiveChannel } from '../../src/live-text/postgres.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const url = inject('postgresUrl');

/** What a page shows of a stream: the events that are not text, in order, and the text. */
function shown(events: AgentEvent[]): { events: string[]; text: string } {
  return {
    events: events.filter((e) => e.type !== 'text_delta').map((e) => e.type),
    text: events
      .filter((e) => e.type === 'text_delta')
      .map((e) => String(e.payload.text))
      .join(''),
  };
}

/** Reads a run's events into `into`, resolving `firstText` with the first text it gets. */
function read(handle: AgentRunHandle, into: AgentEvent[]) {
  let sawText!: (text: string) => void;
  const firstText = new Promise<string>((resolve) => (sawText = resolve));
  const done = (async () => {
    for await (const event of handle.events()) {
      into.push(event);
      if (event.type === 'text_delta') sawText(String(event.payload.text));
    }
  })();
  return { firstText, done };
}

/** `promise`, or a failure naming `what` after 20 s. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`No ${what} within 20 s`)), 20_000)),
  ]);
}

/**
 * A run whose second step writes "Hello ", waits until the test lets it go on, then writes "world.":
 * a reader joins while it waits.
 */
async function joinMidStep(env: TestWorker, readers: { first: LiveTextChannel; joining: LiveTextChannel }) {
  const handle = await env.agents.startRun('writer', 'Add, then greet');
  const reader = (channel: LiveTextChannel) =>
    new AgentRunHandle(env.client.workflow.getHandle(handle.workflowId), { liveChannel: channel });
  const first: AgentEvent[] = [];
  const firstReader = read(reader(readers.first), first);
  expect(await within(firstReader.firstText, 'text for the first reader')).toBe('Hello ');
  // The step is half written: a reader from the run's start joins now.
  const joined: AgentEvent[] = [];
  const joining = read(reader(readers.joining), joined);
  const textWhenJoined = await within(joining.firstText, 'text for the joining reader');
  const history = (await handle.workflow.fetchHistory()).events ?? [];
  const textSignals = history.filter(
    (e) => e.workflowExecutionSignaledEventAttributes?.signalName === TEXT_DELTA_SIGNAL,
  ).length;
  return { handle, first, joined, textWhenJoined, textSignals, done: [firstReader.done, joining.done] };
}

function writer(written: Promise<void>) {
  return new ScriptedModel([
    { toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'add_1' }] },
    async (request: ModelRequest) => {
      request.onTextDelta?.('Hello ');
      await written;
      request.onTextDelta?.('world.');
      return { text: 'Hello world.' };
    },
  ]);
}

describe('a reader that joins in the middle of a step', () => {
  const workers: TestWorker[] = [];
  const channels: PostgresLiveChannel[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const channel of channels) await channel.close();
  });

  async function check(
    options: { liveChannel?: LiveTextChannel },
    readers: { first: LiveTextChannel; joining: LiveTextChannel },
  ) {
    let open!: () => void;
    const written = new Promise<void>((resolve) => (open = resolve));
    const env = await startTestWorker({ writer: { llm: writer(written), tools: [new AddTool()] } }, options);
    workers.push(env);
    const run = await joinMidStep(env, readers).finally(open);
    await Promise.all(run.done);
    // The joining reader got the text so far at once, though the run recorded none of it.
    expect(run.textWhenJoined).toBe('Hello ');
    expect(run.textSignals).toBe(0);
    // Then the rest, once: both readers show the same.
    expect(shown(run.joined)).toEqual(shown(run.first));
    expect(shown(run.joined).text).toBe('Hello world.');
    expect(run.joined.at(-1)?.type).toBe('run_completed');
    expect((await run.handle.result()).output).toBe('Hello world.');
  }

  it('gets the text so far and the rest once, in the worker process', async () => {
    const { inProcessLiveChannel } = await import('../../src/live-text/channel.ts');
    await check({}, { first: inProcessLiveChannel(), joining: inProcessLiveChannel() });
  }, 60_000);

  it.skipIf(!url)(
    'gets the text so far and the rest once, in another process (PostgreSQL)',
    async () => {
      // Three processes' channels: the worker's, the first reader's, and one that starts listening
      // only when the step is half written (it heard nothing of it).
      const [workerSide, firstSide] = [1, 2].map(
        () => new PostgresLiveChannel({ connectionString: url, channel: 'test_live_join' }),
      );
      channels.push(workerSide!, firstSide!);
      await firstSide!.ready();
      let joiningSide: PostgresLiveChannel | undefined;
      const joining: LiveTextChannel = {
        publish: () => undefined,
        subscribe: (workflowId, listener) => {
          joiningSide = new PostgresLiveChannel({ connectionString: url, channel: 'test_live_join' });
          channels.push(joiningSide);
          return joiningSide.subscribe(workflowId, listener);
        },
      };
      await check({ liveChannel: workerSide! }, { first: firstSide!, joining });
      expect(joiningSide).toBeDefined();
    },
    60_000,
  );
});
