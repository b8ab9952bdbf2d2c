import { afterAll, describe, expect, inject, it } from 'vitest';
import { AgentRunHandle } from '../../src/client/run-handle.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { TEXT_DELTA_SIGNAL } from '../../src/common/control.ts';
import { PostgresLiveChannel } from '../../src/live-text/postgres.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const url = inject('postgresUrl');
if (!url) console.warn(`Skipping the PostgreSQL live channel test: ${inject('postgresSkipped')}`);

describe.skipIf(!url)('live text through PostgreSQL LISTEN/NOTIFY', () => {
  const workers: TestWorker[] = [];
  const channels: PostgresLiveChannel[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const channel of channels) await channel.close();
  });

  it('reaches a reader on another connection while the run records no text, and long pieces arrive whole', async () => {
    const long = 'x'.repeat(9_000) + '✓'.repeat(3_000);
    let open!: () => void;
    const written = new Promise<void>((resolve) => (open = resolve));
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'add_1' }] },
      async (request: ModelRequest) => {
        request.onTextDelta?.('Hello ');
        await written;
        request.onTextDelta?.(long);
        return { text: `Hello ${long}` };
      },
    ]);
    // The worker says text through the database only; the reader hears it through its own connections.
    const workerSide = new PostgresLiveChannel({ connectionString: url, channel: 'test_live' });
    const readerSide = new PostgresLiveChannel({ connectionString: url, channel: 'test_live' });
    channels.push(workerSide, readerSide);
    await readerSide.ready();
    const env = await startTestWorker(
      { writer: { llm, tools: [new AddTool()], liveText: { batchMs: 60_000 } } },
      { liveChannel: workerSide },
    );
    workers.push(env);
    const started = await env.agents.startRun('writer', 'Add, then greet');
    const handle = new AgentRunHandle(env.client.workflow.getHandle(started.workflowId), {
      liveChannel: readerSide,
    });
    // What the channel said of the step, as heard in the reader's process, until the step closed.
    const pieces = new Map<number, string>(); // by offset: the text so far may come again as the reader subscribes
    let closed!: () => void;
    const stepClosed = new Promise<void>((resolve) => (closed = resolve));
    const unsubscribe = readerSide.subscribe(started.workflowId, (message) => {
      if (message.kind === 'text') pieces.set(message.offset, message.text);
      if (message.kind === 'closed' && pieces.size > 0) closed();
    });
    const events: AgentEvent[] = [];
    let signalsAtFirstText: number | undefined;
    for await (const event of handle.events()) {
      events.push(event);
      if (event.type === 'text_delta' && signalsAtFirstText === undefined) {
        const history = (await handle.workflow.fetchHistory()).events ?? [];
        signalsAtFirstText = history.filter(
          (e) => e.workflowExecutionSignaledEventAttributes?.signalName === TEXT_DELTA_SIGNAL,
        ).length;
        open();
      }
    }
    expect(signalsAtFirstText).toBe(0);
    expect(events.find((e) => e.type === 'text_delta')?.cursor).toMatch(/^\d+\.6$/);
    const texts = events.filter((e) => e.type === 'text_delta');
    expect(texts.map((e) => e.payload.text).join('')).toBe(`Hello ${long}`);
    // The long text went through the database in pieces that fit a notification, and arrived whole.
    await Promise.race([
      stepClosed,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error('The step never closed on the channel')), 20_000),
      ),
    ]);
    unsubscribe();
    const heard = [...pieces].sort(([a], [b]) => a - b).map(([, text]) => text);
    expect(heard.join('')).toBe(`Hello ${long}`);
    expect(heard.length).toBeGreaterThan(2);
    expect(events.at(-1)?.type).toBe('run_completed');
  }, 60_000);
});
