import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import { InProcessLiveChannel } from '../../src/live-text/channel.ts';
import { HeardEvents } from '../../src/live-text/heard-events.ts';

const event = (seq: number): AgentEvent => ({
  seq,
  type: 'tool_called',
  message: `event ${seq}`,
  payload: {},
  timestamp: '2026-12-07T00:00:00.000Z',
});

describe('HeardEvents: a reader takes the run events said on the channel in seq order, each once', () => {
  it('gives the events that follow on from the last seq read, and says gap when the next one is missing', () => {
    const channel = new InProcessLiveChannel();
    const heard = new HeardEvents(channel, 'wf');
    heard.follow('run-1');
    expect(heard.trusted).toBe(false);
    const say = (seq: number, withEvent = true) =>
      channel.publishEvent({
        workflowId: 'wf',
        runId: 'run-1',
        seq,
        ...(withEvent ? { event: event(seq) } : {}),
      });
    say(3);
    expect(heard.trusted).toBe(true);
    expect(heard.take()).toBe(true);
    expect(heard.after(1)).toBe('gap'); // seq 2 not heard
    say(2);
    expect(heard.after(1)).toEqual([event(2), event(3)]);
    // Said again (a workflow task taken again): the reader is past it.
    say(3);
    expect(heard.after(3)).toEqual([]);
    // Said by its seq alone (too large for the channel): the run is read for it.
    say(4, false);
    say(5);
    expect(heard.after(3)).toBe('gap');
    heard.close();
  });

  it('keeps the events of the next run of a chain for when the reader follows it', async () => {
    const channel = new InProcessLiveChannel();
    const heard = new HeardEvents(channel, 'wf');
    heard.follow('run-1');
    channel.publishEvent({ workflowId: 'wf', runId: 'run-2', seq: 7, event: event(7) });
    channel.publishEvent({ workflowId: 'other', runId: 'run-1', seq: 1, event: event(1) });
    expect(heard.take()).toBe(false);
    heard.follow('run-2');
    await heard.changed();
    expect(heard.take()).toBe(true);
    expect(heard.after(6)).toEqual([event(7)]);
    heard.close();
  });

  it('is never trusted on a channel without events, and no longer after a silence that missed some', () => {
    const channel = new InProcessLiveChannel();
    const textOnly = { publish: channel.publish.bind(channel), subscribe: channel.subscribe.bind(channel) };
    const polling = new HeardEvents(textOnly, 'wf');
    polling.follow('run-1');
    channel.publishEvent({ workflowId: 'wf', runId: 'run-1', seq: 1, event: event(1) });
    expect(polling.trusted).toBe(false);
    expect(polling.after(0)).toEqual([]);
    const heard = new HeardEvents(channel, 'wf');
    heard.follow('run-1');
    channel.publishEvent({ workflowId: 'wf', runId: 'run-1', seq: 2, event: event(2) });
    expect(heard.trusted).toBe(true);
    heard.distrust();
    expect(heard.trusted).toBe(false);
    channel.publishEvent({ workflowId: 'wf', runId: 'run-1', seq: 3, event: event(3) });
    expect(heard.trusted).toBe(true);
  });
});
