import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentRunHandle } from '../../src/client/run-handle.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { TEXT_DELTA_SIGNAL } from '../../src/common/control.ts';
import { eventsQuery } from '../../src/common/workflow-definitions.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { parseCursor } from '../../src/subagents/event-cursor.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

/** The text batches the run's history holds (the signals live text costs). */
async function textSignals(workflow: WorkflowHandle): Promise<number> {
  const history = (await workflow.fetchHistory()).events ?? [];
  return history.filter(
    (event) => event.workflowExecutionSignaledEventAttributes?.signalName === TEXT_DELTA_SIGNAL,
  ).length;
}

function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/**
 * A stream as what a page shows of it: the events that are not text, in order, and the text. (A
 * run's first step may be shown live before its `step_started`, which a reader of the recorded
 * events gets first: the text is compared whole.)
 */
function shown(events: AgentEvent[]): { events: string[]; text: string } {
  return {
    events: events.filter((e) => e.type !== 'text_delta').map((e) => `${e.type}@${e.seq}`),
    text: events
      .filter((e) => e.type === 'text_delta')
      .map((e) => String(e.payload.text))
      .join(''),
  };
}

/** What a reader got before it stopped, then what a reader that resumed after it got. */
function joined(first: AgentEvent[], then: AgentEvent[]): { events: string[]; text: string } {
  const [a, b] = [shown(first), shown(then)];
  return { events: [...a.events, ...b.events], text: a.text + b.text };
}

/** Cursors compared as a reader gets them: seq by seq, then the characters of live text after the last. */
function before(a: string, b: string): boolean {
  const [x, y] = [parseCursor(a), parseCursor(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] === undefined) return true;
    if (y[i] === undefined) return false;
    if (x[i] !== y[i]) return x[i]! < y[i]!;
  }
  return (x.chars ?? 0) < (y.chars ?? 0);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('live text over the in-process channel', () => {
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it('delivers a piece of text to a reader in the process, never as a batch; a reader without a channel gets it when the step answers', async () => {
    const written = gate();
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'add_1' }] },
      async (request: ModelRequest) => {
        request.onTextDelta?.('Hello ');
        await written.opened;
        request.onTextDelta?.('world.');
        return { text: 'Hello world.' };
      },
    ]);
    const env = await startTestWorker({
      writer: { llm, tools: [new AddTool()] },
    });
    workers.push(env);
    const handle = await env.agents.startRun('writer', 'Add, then greet');
    const polling = new AgentRunHandle(env.client.workflow.getHandle(handle.workflowId), {
      liveChannel: false,
    });
    const polled: AgentEvent[] = [];
    const pollingDone = (async () => {
      for await (const event of polling.events()) polled.push(event);
    })();

    const events: AgentEvent[] = [];
    let atFirstText: { signals: number; runTexts: number; polledTexts: number } | undefined;
    for await (const event of handle.events()) {
      events.push(event);
      if (event.type === 'text_delta' && !atFirstText) {
        atFirstText = {
          signals: await textSignals(handle.workflow),
          runTexts: (await handle.workflow.query(eventsQuery, 0)).filter((e) => e.type === 'text_delta')
            .length,
          polledTexts: polled.filter((e) => e.type === 'text_delta').length,
        };
        written.open();
      }
    }
    await pollingDone;

    // The reader had "Hello " while the run had recorded no text: no batch sent, no text_delta logged.
    expect(events.find((e) => e.type === 'text_delta')?.payload.text).toBe('Hello ');
    expect(atFirstText).toEqual({ signals: 0, runTexts: 0, polledTexts: 0 });
    const text = (list: AgentEvent[]) =>
      list
        .filter((e) => e.type === 'text_delta')
        .map((e) => e.payload.text)
        .join('');
    expect(text(events)).toBe('Hello world.');
    expect(events.at(-1)?.type).toBe('run_completed');
    // Live pieces have cursors of their own (`<seq>.<characters>`), increasing with the rest.
    const cursors = events.map((e) => e.cursor!);
    expect(cursors.some((cursor) => cursor.includes('.'))).toBe(true);
    for (let i = 1; i < cursors.length; i++) expect(before(cursors[i - 1]!, cursors[i]!)).toBe(true);
    // The reader without a channel got the same, from the step's result, by reading the run.
    expect(text(polled)).toBe('Hello world.');
    expect(polled.every((e) => !e.cursor!.includes('.'))).toBe(true);
    expect(polled.map((e) => e.type)).toEqual(
      events
        .filter((e) => e.type !== 'text_delta')
        .map((e) => e.type)
        .toSpliced(-1, 0, 'text_delta'),
    );
    // The text never went to the workflow in batches: the run recorded it from the step's result.
    expect(await textSignals(handle.workflow)).toBe(0);
    expect((await handle.result()).output).toBe('Hello world.');
  }, 60_000);

  it('resumes after any cursor, live or recorded, with no text twice and none missed', async () => {
    const pieces = Array.from({ length: 12 }, (_, i) => `p${i} `);
    const write = async (request: ModelRequest) => {
      for (const piece of pieces) {
        request.onTextDelta?.(piece);
        await sleep(15);
      }
    };
    const llm = new ScriptedModel([
      async (request: ModelRequest) => {
        await write(request);
        return { text: pieces.join(''), toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'add_1' }] };
      },
      async (request: ModelRequest) => {
        await write(request);
        return { text: pieces.join('') };
      },
    ]);
    const env = await startTestWorker({ writer: { llm, tools: [new AddTool()], liveText: { batchMs: 40 } } });
    workers.push(env);
    const handle = await env.agents.startRun('writer', 'Write, add, write');

    const events: AgentEvent[] = [];
    const resumedLive: Array<Promise<{ at: number; events: AgentEvent[] }>> = [];
    for await (const event of handle.events()) {
      events.push(event);
      // Readers that join at a live piece, while the run writes.
      if (event.cursor!.includes('.') && resumedLive.length < 3) {
        const at = events.length;
        resumedLive.push(
          (async () => {
            const rest: AgentEvent[] = [];
            for await (const next of handle.events({ after: event.cursor! })) rest.push(next);
            return { at, events: rest };
          })(),
        );
      }
    }
    const whole = shown(events);
    expect(whole.text).toBe(pieces.join('').repeat(2));
    expect(events.filter((e) => e.cursor!.includes('.')).length).toBeGreaterThan(3);
    expect(resumedLive.length).toBeGreaterThan(0);
    for (const { at, events: rest } of await Promise.all(resumedLive)) {
      expect(joined(events.slice(0, at), rest)).toEqual(whole);
    }
    // And after the run, from every cursor it gave.
    for (let i = 0; i < events.length; i++) {
      const rest: AgentEvent[] = [];
      for await (const next of handle.events({ after: events[i]!.cursor! })) rest.push(next);
      expect(joined(events.slice(0, i + 1), rest), `after ${events[i]!.cursor}`).toEqual(whole);
    }
  }, 90_000);
});
