import type { Event } from '@ag-ui/core';
import { describe, expect, it } from 'vitest';
import { parsePosition, place, positionId, unsent } from '../../src/ag-ui/stream-position.ts';

const text = (delta: string) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta }) as Event;
const step = { type: 'STEP_STARTED', stepName: 'step 1' } as Event;

describe('the places of an AG-UI stream (Last-Event-ID)', () => {
  it('counts events other than text, and the characters of text since the last of them', () => {
    const position = { events: 0, chars: 0 };
    const ids = [step, text('Hello '), text('world'), step].map((event) =>
      positionId(place(position, event).end),
    );
    expect(ids).toEqual(['1', '1.6', '1.11', '2']);
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

  it('reads its own ids, and reads from the start an id that is not one', () => {
    expect(parsePosition('12.40')).toEqual({ events: 12, chars: 40 });
    expect(parsePosition('3')).toEqual({ events: 3, chars: 0 });
    expect(parsePosition('12/3')).toBeUndefined();
    expect(parsePosition(null)).toBeUndefined();
  });
});
