import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import { ConfigurationError } from '../../src/errors.ts';
import {
  InProcessLiveChannel,
  resolveLiveChannel,
  type LiveTextMessage,
} from '../../src/live-text/channel.ts';
import { LiveTextFollower } from '../../src/live-text/follower.ts';
import { parseCursor } from '../../src/subagents/event-cursor.ts';

const RUN = { workflowId: 'wf', runId: 'run-1' };
/** A message of run-1 of `wf`. */
type Heard = LiveTextMessage extends infer M
  ? M extends unknown
    ? Omit<M, 'workflowId' | 'runId'>
    : never
  : never;

function event(seq: number, type: AgentEvent['type'], payload: Record<string, unknown> = {}): AgentEvent {
  return { seq, type, message: type, payload, timestamp: '2026-11-28T00:00:00.000Z' };
}

/** A follower of `wf` from the run's start, and what it delivers: events read, then text heard. */
function follower(channel = new InProcessLiveChannel()) {
  const live = new LiveTextFollower(channel, 'wf');
  live.follow('run-1');
  live.fromStart();
  let seq = 0;
  const out: AgentEvent[] = [];
  const say = (message: Heard) => channel.publish({ ...RUN, ...message });
  /** One read of the run: these events, then whatever heard text is due. */
  const read = (...events: AgentEvent[]) => {
    live.readStarted();
    for (const read of events) {
      seq = read.seq;
      const shown = live.read(read);
      if (shown) out.push(shown);
    }
    live.readDone();
    deliver();
  };
  const deliver = () => {
    const heard = live.heard(seq);
    if (heard) out.push(heard);
  };
  const text = () =>
    out
      .filter((e) => e.type === 'text_delta')
      .map((e) => e.payload.text)
      .join('');
  return { live, say, read, deliver, out, text };
}

describe('LiveTextFollower', () => {
  it('delivers heard text once the run has been read to its step, and trims the batches that say it again', () => {
    const f = follower();
    f.read(event(1, 'run_started'), event(2, 'step_started', { iteration: 1 }));
    f.say({ kind: 'text', seq: 3, attempt: 1, offset: 0, text: 'Hel' });
    expect(f.live.take()).toBe('read'); // a step not delivered yet: read up to its start first
    f.read();
    f.say({ kind: 'text', seq: 3, attempt: 1, offset: 3, text: 'lo ' });
    expect(f.live.take()).toBe('text');
    f.deliver();
    expect(f.out.at(-1)).toMatchObject({ seq: 2, cursor: '2.6', payload: { text: 'lo ' } });
    // The batch recording "Hello" comes: 6 characters were delivered, "Hello" is 5, nothing new.
    f.read(event(3, 'text_delta', { text: 'Hello', attempt: 1 }));
    // A batch ahead of what was heard (a lost message): its new part is delivered from it.
    f.read(event(4, 'text_delta', { text: ' world', attempt: 1 }));
    f.say({ kind: 'text', seq: 3, attempt: 1, offset: 6, text: 'world.' });
    f.deliver();
    expect(f.text()).toBe('Hello world.');
    expect(f.out.map((e) => e.cursor ?? String(e.seq))).toEqual(['1', '2', '2.3', '2.6', '4', '4.1']);
    // The end of the step delivered live asks for a read soon (its result follows); the next step starts afresh.
    f.say({ kind: 'closed', seq: 3, attempt: 1 });
    expect(f.live.take()).toBe('closed');
    expect(f.live.streaming).toBe(false);
  });

  it('reads a step from the batches when it did not read where the step began (a reader that resumed)', () => {
    const channel = new InProcessLiveChannel();
    const live = new LiveTextFollower(channel, 'wf');
    live.follow('run-1');
    live.readStarted();
    expect(live.read(event(7, 'text_delta', { text: 'abc', attempt: 1 }))?.payload.text).toBe('abc');
    live.readDone();
    channel.publish({ ...RUN, kind: 'text', seq: 3, attempt: 1, offset: 3, text: 'def' });
    live.readStarted();
    live.readDone();
    expect(live.heard(7)).toBeUndefined();
    expect(live.read(event(8, 'text_delta', { text: 'def', attempt: 1 }))?.payload.text).toBe('def');
  });

  it('joins a step heard from the middle when the batches read reach where hearing began', () => {
    const f = follower();
    f.read(event(1, 'step_started', { iteration: 1, turn_id: 't1' }));
    f.say({ kind: 'text', seq: 3, attempt: 1, offset: 4, text: 'ef' }); // subscribed after "abcd"
    f.read(event(2, 'text_delta', { text: 'abc', attempt: 1, turn_id: 't1' }));
    expect(f.live.streaming).toBe(false); // "abc" does not reach offset 4
    f.read(event(3, 'text_delta', { text: 'de', attempt: 1, turn_id: 't1' }));
    f.say({ kind: 'text', seq: 3, attempt: 1, offset: 6, text: 'gh' });
    f.deliver();
    expect(f.text()).toBe('abcdefgh');
    expect(f.out.slice(-2).map((e) => e.payload)).toEqual([
      { turn_id: 't1', text: 'f', attempt: 1 },
      { turn_id: 't1', text: 'gh', attempt: 1 },
    ]);
  });

  it('gets the text so far of a step in flight as it subscribes, takes a piece it has once, and trims the step’s recorded text', () => {
    const channel = new InProcessLiveChannel();
    // A step that closed is forgotten: a reader that subscribes later gets nothing of it.
    channel.publish({
      ...RUN,
      workflowId: 'other',
      kind: 'text',
      seq: 1,
      attempt: 1,
      offset: 0,
      text: 'Old',
    });
    channel.publish({ ...RUN, workflowId: 'other', kind: 'closed', seq: 1, attempt: 1 });
    channel.publish({ ...RUN, kind: 'text', seq: 3, attempt: 1, offset: 0, text: 'Hel' });
    channel.publish({ ...RUN, kind: 'text', seq: 3, attempt: 1, offset: 3, text: 'lo ' });
    const other: string[] = [];
    channel.subscribe('other', (message) => other.push(message.kind));
    expect(other).toEqual([]);
    const f = follower(channel);
    f.read(event(1, 'run_started'), event(2, 'step_started', { iteration: 1 }));
    expect(f.text()).toBe('Hello ');
    // The same piece again (a channel gave it with the text so far, then as said), then the rest.
    f.say({ kind: 'text', seq: 3, attempt: 1, offset: 3, text: 'lo ' });
    f.say({ kind: 'text', seq: 3, attempt: 1, offset: 6, text: 'world.' });
    f.deliver();
    // The step answers: the run records its text once, from the step's result.
    f.say({ kind: 'closed', seq: 3, attempt: 1 });
    f.read(event(3, 'text_delta', { text: 'Hello world.', attempt: 1 }), event(4, 'run_completed'));
    expect(f.text()).toBe('Hello world.');
    expect(f.out.map((e) => e.type)).toEqual([
      'run_started',
      'step_started',
      'text_delta',
      'text_delta',
      'run_completed',
    ]);
  });

  it('delivers a retried attempt from its start when the worker died before the run recorded any of the step’s text', () => {
    const f = follower();
    f.read(event(1, 'run_started'), event(2, 'step_started', { iteration: 1 }));
    f.say({ kind: 'text', seq: 3, attempt: 1, offset: 0, text: 'Half an ' });
    f.read();
    expect(f.text()).toBe('Half an ');
    // The worker died; attempt 2 writes again from nothing, under its attempt.
    f.say({ kind: 'text', seq: 3, attempt: 2, offset: 0, text: 'A whole ' });
    expect(f.live.take()).toBe('read');
    f.read();
    f.say({ kind: 'text', seq: 3, attempt: 2, offset: 8, text: 'answer.' });
    f.deliver();
    f.read(event(3, 'text_delta', { text: 'A whole answer.', attempt: 2 }));
    const texts = f.out
      .filter((e) => e.type === 'text_delta')
      .map((e) => [e.payload.attempt, e.payload.text]);
    expect(texts).toEqual([
      [1, 'Half an '],
      [2, 'A whole '],
      [2, 'answer.'],
    ]);
  });

  it('holds a step whose first batch says something first until that batch is read; a retried attempt starts anew', () => {
    const f = follower();
    f.read(event(1, 'step_started', { iteration: 1 }), event(2, 'tool_called', { call_id: 'a' }));
    f.say({ kind: 'text', seq: 5, attempt: 1, offset: 0, text: 'Done', held: true });
    expect(f.live.take()).toBeUndefined(); // no read and nothing to deliver: its first batch is not sent
    f.say({ kind: 'sent', seq: 5, attempt: 1, wake: true });
    expect(f.live.take()).toBe('read');
    f.read(
      event(3, 'tool_completed', { call_id: 'a' }),
      event(4, 'step_started', { iteration: 2 }),
      event(5, 'text_delta', { text: 'Do', attempt: 1 }),
    );
    expect(f.text()).toBe('Done');
    // The worker died; attempt 2 writes again from nothing.
    f.say({ kind: 'text', seq: 5, attempt: 2, offset: 0, text: 'Fresh' });
    f.read(event(6, 'text_delta', { text: 'Fr', attempt: 2 }));
    f.deliver();
    expect(f.out.slice(-2).map((e) => e.payload.text)).toEqual(['Fr', 'esh']);
  });

  it('shows a run’s first step at once to a reader at the run’s start; its step_started then carries the text delivered', () => {
    const f = follower();
    f.read(event(1, 'run_started'));
    f.say({ kind: 'text', seq: 1, attempt: 1, offset: 0, text: 'Hi ', held: true, opens: true });
    f.deliver();
    f.read(event(2, 'step_started', { iteration: 1 }), event(3, 'text_delta', { text: 'Hi', attempt: 1 }));
    expect(f.out.map((e) => [e.type, e.cursor ?? String(e.seq)])).toEqual([
      ['run_started', '1'],
      ['text_delta', '1.3'],
      ['step_started', '2.3'],
    ]);
  });

  it('delivers a retried attempt of a run’s first step live after the run recorded what the attempt before wrote', () => {
    // A reader that joins (a page reloaded) after the first attempt missed its heartbeat: the
    // workflow has the step's start and the text the stopped attempt wrote; the new attempt is held
    // (a run's first step always is) and says its start nowhere, the run having it already.
    const f = follower();
    f.read(
      event(1, 'step_started', { iteration: 1 }),
      event(2, 'text_delta', { text: 'w1 w2 ', attempt: 1 }),
    );
    f.say({ kind: 'text', seq: 1, attempt: 2, offset: 0, text: 'w1 ', held: true, opens: true });
    expect(f.live.take()).toBe('text');
    f.say({ kind: 'text', seq: 1, attempt: 2, offset: 3, text: 'w2 w3 ', held: true, opens: true });
    f.deliver();
    // The stopped attempt's last words, recorded late, are not the step's any more.
    f.read(event(3, 'text_delta', { text: 'w3 ', attempt: 1 }));
    f.say({ kind: 'text', seq: 1, attempt: 2, offset: 9, text: 'w4', held: true, opens: true });
    f.deliver();
    // The step's result records the new attempt's text: nothing of it is delivered twice.
    f.read(event(4, 'text_delta', { text: 'w1 w2 w3 w4.', attempt: 2 }));
    const texts = f.out
      .filter((e) => e.type === 'text_delta')
      .map((e) => [e.payload.attempt, e.payload.text]);
    expect(texts).toEqual([
      [1, 'w1 w2 '],
      [2, 'w1 w2 w3 '],
      [2, 'w4'],
      [2, '.'],
    ]);
  });

  it('delivers a retried attempt from its start after the run recorded some of the attempt before', () => {
    const f = follower();
    f.read(event(1, 'step_started', { iteration: 2 }), event(2, 'text_delta', { text: 'Half', attempt: 1 }));
    f.say({ kind: 'text', seq: 4, attempt: 2, offset: 0, text: 'Whole' });
    expect(f.live.take()).toBe('read'); // read up to where it was heard first
    f.read();
    f.say({ kind: 'text', seq: 4, attempt: 2, offset: 5, text: ' answer' });
    f.deliver();
    expect(
      f.out.filter((e) => e.type === 'text_delta').map((e) => [e.payload.attempt, e.payload.text]),
    ).toEqual([
      [1, 'Half'],
      [2, 'Whole'],
      [2, ' answer'],
    ]);
  });

  it('parses live cursors and refuses what is not a channel', () => {
    expect(parseCursor('12/3.40')).toEqual(Object.assign([12, 3], { chars: 40 }));
    expect(parseCursor('12.40').chars).toBe(40);
    expect(parseCursor('12').chars).toBeUndefined();
    for (const bad of ['12.', '12.x', '12.4.5', '.4', '12/.4'])
      expect(() => parseCursor(bad)).toThrow(ConfigurationError);
    expect(resolveLiveChannel(false, 'x')).toBeUndefined();
    expect(() => resolveLiveChannel({} as never, 'createAgentWorker')).toThrow(
      /createAgentWorker: liveChannel must have publish\(message\) and subscribe/,
    );
  });
});
