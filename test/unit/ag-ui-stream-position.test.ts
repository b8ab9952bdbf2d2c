import type { Event } from '@ag-ui/core';
import { describe, expect, it } from 'vitest';
import { eventId, parseEventId, place, unsent } from '../../src/ag-ui/stream-position.ts';

const text = (delta: string) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta }) as Event;
const step = { type: 'STEP_STARTED', stepName: 'step 1' } as Event;

describe('the places of an AG-UI stream (Last-Event-ID)', () => {
  it('counts events other than text, and the characters of text since the last of them', () => {
    const position = { events: 0, chars: 0 };
    const ids = [step, text('Hello '), text('world'), step].map((event) =>
      eventId(place(position, event).end, 't1'),
    );
    expect(ids).toEqual(['1@t1', '1.6@t1', '1.11@t1', '2@t1']);
  });

  it('sends a reader resuming inside a text event the rest of its text, and nothing it had', () => {
    const at = { start: { events: 1, chars: 6 }, end: { events: 1, chars: 11 } };
    expect(unsent(text('world'), at, { events: 1, chars: 8 })).toMatchObject({ delta: 'rld' });
    expect(unsent(text('world'), at, { events: 1, chars: 11 })).toBeUndefined();
    expect(unsent(text('world'), at, { events: 1, chars: 6 })).toMatchObject({ delta: 'world' });
    expect(
      unsent(step, { start: { events: 0, chars: 0 }, end: { events: 1, chars: 0 } }, { events: 1, chars: 0 }),
    ).toBeUndefined();
  });

  it('reads its own ids of the turn, and from the start an id that is not one or names another turn', () => {
    expect(parseEventId('12.40@t1', 't1')).toEqual({ events: 12, chars: 40 });
    expect(parseEventId('3@t1', 't1')).toEqual({ events: 3, chars: 0 });
    expect(parseEventId('3@t0', 't1')).toBeUndefined();
    expect(parseEventId('12/3', 't1')).toBeUndefined();
    expect(parseEventId(null, 't1')).toBeUndefined();
  });
});
