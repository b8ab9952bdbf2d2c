import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AgentRunHandle } from '../../src/client/run-handle.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { TEXT_DELTA_SIGNAL } from '../../src/common/control.ts';
import type { LiveTextMessage } from '../../src/live-text/channel.ts';
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

  it('says the messages of many steps written at once in order, none lost, and keeps only the open ones', async () => {
    const channel = `test_live_many_${Date.now()}`;
    const workerSide = new PostgresLiveChannel({ connectionString: url, channel });
    const readerSide = new PostgresLiveChannel({ connectionString: url, channel });
    channels.push(workerSide, readerSide);
    await readerSide.ready();
    const runs = Array.from({ length: 100 }, (_, i) => `many-${i}`);
    const heard = new Map<string, LiveTextMessage[]>(runs.map((id) => [id, []]));
    for (const id of runs) readerSide.subscribe(id, (message) => heard.get(id)!.push(message));
    // Text a JSON payload escapes (quotes, controls) takes more room than its characters.
    const escaped = '"\u0001'.repeat(3_500);
    const pieceOf = (i: number) => (i === 10 ? escaped : `piece ${i} `);
    const written = Array.from({ length: 20 }, (_, i) => pieceOf(i)).join('');
    // All said in one go, as 100 steps writing at once would: the even steps close meanwhile.
    for (let i = 0; i < 20; i++) {
      for (const id of runs) {
        const offset = Array.from({ length: i }, (_, j) => pieceOf(j)).join('').length;
        workerSide.publish({
          workflowId: id,
          runId: 'r',
          seq: 1,
          attempt: 1,
          kind: 'text',
          offset,
          text: pieceOf(i),
        });
      }
    }
    runs.forEach((id, n) => {
      if (n % 2 === 0) workerSide.publish({ workflowId: id, runId: 'r', seq: 1, attempt: 1, kind: 'closed' });
    });
    // The text as a reader puts it together: each piece follows on (a subscription's text so far
    // may give again what was heard live: the same offsets), none leaves a gap.
    const textOf = (messages: LiveTextMessage[]) => {
      let text = '';
      for (const message of messages) {
        if (message.kind !== 'text') continue;
        if (message.offset > text.length) return `${text}(gap at ${text.length})`;
        text += message.text.slice(text.length - message.offset);
      }
      return text;
    };
    const done = () =>
      runs.every((id, n) => {
        const messages = heard.get(id)!;
        return textOf(messages) === written && (n % 2 === 1 || messages.at(-1)?.kind === 'closed');
      });
    for (let waited = 0; !done() && waited < 30_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    for (const [n, id] of runs.entries()) {
      const messages = heard.get(id)!;
      expect(textOf(messages)).toBe(written);
      if (n % 2 === 0) expect(messages.at(-1)?.kind).toBe('closed');
    }
    // The open steps' text is kept for readers that join; a step that closed is forgotten.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ workflow_id: string; message: string }>(
        'SELECT workflow_id, message FROM toolkit_live_text_steps WHERE channel = $1 ORDER BY id',
        [channel],
      );
      const kept = new Map<string, string>();
      for (const row of rows) {
        const message = JSON.parse(row.message) as LiveTextMessage;
        kept.set(
          row.workflow_id,
          (kept.get(row.workflow_id) ?? '') + (message.kind === 'text' ? message.text : ''),
        );
      }
      expect([...kept.keys()].sort()).toEqual(runs.filter((_, n) => n % 2 === 1).sort());
      for (const text of kept.values()) expect(text).toBe(written);
    } finally {
      await client.end();
    }
    // A reader that joins now gets a step's text so far, as one message (what it hears live
    // meanwhile may be ahead of the step's first pieces: the text so far reaches it).
    const joiner = new PostgresLiveChannel({ connectionString: url, channel });
    channels.push(joiner);
    const late: LiveTextMessage[] = [];
    joiner.subscribe('many-1', (message) => late.push(message));
    for (let waited = 0; textOf(late) !== written && waited < 30_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    expect(late).toEqual([
      { workflowId: 'many-1', runId: 'r', seq: 1, attempt: 1, kind: 'text', offset: 0, text: written },
    ]);
  }, 60_000);

  it('gives a reader that subscribes after nobody listened for a while the text so far whole, then the rest', async () => {
    const channel = `test_live_gap_${Date.now()}`;
    const workerSide = new PostgresLiveChannel({ connectionString: url, channel });
    const readerSide = new PostgresLiveChannel({ connectionString: url, channel });
    channels.push(workerSide, readerSide);
    const say = (offset: number, text: string) =>
      workerSide.publish({ workflowId: 'page', runId: 'r', seq: 1, attempt: 1, kind: 'text', offset, text });
    const heardUntil = async (messages: LiveTextMessage[], text: string) => {
      for (let waited = 0; waited < 20_000; waited += 25) {
        if (messages.some((m) => m.kind === 'text' && m.offset + m.text.length >= text.length)) return;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`Never heard "${text}"`);
    };
    // A page reads the step, then reloads: nobody subscribes while the step writes on.
    const before: LiveTextMessage[] = [];
    const leave = readerSide.subscribe('page', (message) => before.push(message));
    await readerSide.ready();
    say(0, 'w1 ');
    say(3, 'w2 ');
    await heardUntil(before, 'w1 w2 ');
    leave();
    say(6, 'w3 ');
    // The piece reaches the reader's process while nobody there subscribes (a notification comes
    // within milliseconds of its statement).
    await new Promise((r) => setTimeout(r, 1_000));
    const after: LiveTextMessage[] = [];
    readerSide.subscribe('page', (message) => after.push(message));
    // What a subscriber gets first is the text so far, which the next piece follows on.
    expect(after[0]).toMatchObject({ kind: 'text', offset: 0, text: 'w1 w2 w3 ' });
    say(9, 'w4');
    await heardUntil(after, 'w1 w2 w3 w4');
    const pieces = after.filter((m) => m.kind === 'text');
    let text = '';
    for (const piece of pieces) {
      expect(piece.offset).toBeLessThanOrEqual(text.length); // no gap
      text += piece.text.slice(text.length - piece.offset);
    }
    expect(text).toBe('w1 w2 w3 w4');
  }, 60_000);
});
