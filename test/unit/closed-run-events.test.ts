import { describe, expect, it } from 'vitest';
import { closedLog, eventsAfter, type AgentEvent } from '../../src/common/events.ts';

const event = (seq: number, type: AgentEvent['type'], text = ''): AgentEvent => ({
  seq,
  type,
  message: type,
  payload: text ? { text } : {},
  timestamp: '2026-01-01T00:00:00.000Z',
});

describe("a closed run's log in its result", () => {
  const events = [
    event(1, 'run_started'),
    event(2, 'step_started'),
    ...Array.from({ length: 20 }, (_, i) => event(3 + i, 'text_delta', 'x'.repeat(100))),
    event(23, 'run_completed'),
  ];

  it('carries every event within the budget', () => {
    const log = closedLog(events, 23, 100_000);
    expect(log).toMatchObject({ first_seq: 1, last_seq: 23 });
    expect(log.events).toHaveLength(23);
    expect(eventsAfter(log, 20)!.map((e) => e.seq)).toEqual([21, 22, 23]);
  });

  it('drops live text first, and keeps the newest events when still over the budget', () => {
    const noText = closedLog(events, 23, 1000);
    expect(noText.events.map((e) => e.seq)).toEqual([1, 2, 23]);
    const tail = closedLog(events, 23, 250);
    expect(tail.events.map((e) => e.seq)).toEqual([2, 23]);
    expect(tail.first_seq).toBe(2);
    // A reader before the first event carried must ask the run itself.
    expect(eventsAfter(tail, 0)).toBeUndefined();
    expect(eventsAfter(tail, 1)!.map((e) => e.seq)).toEqual([2, 23]);
  });

  it('carries nothing rather than pass the budget with one event', () => {
    const huge = [event(1, 'run_started'), event(2, 'run_completed', 'y'.repeat(5_000))];
    const log = closedLog(huge, 2, 1000);
    expect(log).toEqual({ first_seq: 3, last_seq: 2, events: [] });
    expect(eventsAfter(log, 0)).toBeUndefined();
  });

  it('an empty log starts after the last seq (a session continued from earlier runs)', () => {
    expect(closedLog([], 7, 1000)).toEqual({ first_seq: 8, last_seq: 7, events: [] });
    expect(eventsAfter(closedLog([], 7, 1000), 7)).toEqual([]);
  });
});
