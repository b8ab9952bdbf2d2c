import type * as Core from '@ag-ui/core';

/**
 * A place in a turn's AG-UI stream, the same for every reader of the turn: `events` counts the
 * events before it other than text, `chars` the characters of text written since the last of them.
 * An event's SSE id is the place after it in its turn (`12@<turnId>`, or `12.40@<turnId>` inside a
 * text message).
 */
export interface StreamPosition {
  events: number;
  chars: number;
}

/** Where an event starts and ends. */
export interface EventPlace {
  start: StreamPosition;
  end: StreamPosition;
}

/** The place after `event`, which starts at `position` (updated). */
export function place(position: StreamPosition, event: Core.Event): EventPlace {
  const start = { ...position };
  if (isTextContent(event)) {
    position.chars += event.delta.length;
  } else {
    position.events += 1;
    position.chars = 0;
  }
  return { start, end: { ...position } };
}

/** The SSE id of a place of turn `turnId`: `12@<turnId>` or `12.40@<turnId>`. */
export function eventId(position: StreamPosition, turnId: string): string {
  return `${position.chars > 0 ? `${position.events}.${position.chars}` : position.events}@${turnId}`;
}

/**
 * The place an SSE id names in turn `turnId`; `undefined` for an id that is not one of ours or names
 * another turn (the reader reads the turn from its start).
 */
export function parseEventId(id: string | null | undefined, turnId: string): StreamPosition | undefined {
  const match = /^(\d{1,9})(?:\.(\d{1,9}))?@(.+)$/.exec(id?.trim() ?? '');
  if (!match || match[3] !== turnId) return undefined;
  return { events: Number(match[1]), chars: Number(match[2] ?? 0) };
}

/** Whether place `a` comes before `b`. */
export function isBefore(a: StreamPosition, b: StreamPosition): boolean {
  return a.events < b.events || (a.events === b.events && a.chars < b.chars);
}

/**
 * What a reader that has had everything up to `after` has not had of `event`: all of it, none of
 * it, or the end of its text when `after` falls inside it.
 */
export function unsent(event: Core.Event, at: EventPlace, after?: StreamPosition): Core.Event | undefined {
  if (!after || !isBefore(at.start, after)) return event;
  if (!isBefore(after, at.end) || !isTextContent(event)) return undefined;
  return { ...event, delta: event.delta.slice(after.chars - at.start.chars) };
}

function isTextContent(event: Core.Event): event is Core.TextMessageContentEvent {
  return (event.type as string) === 'TEXT_MESSAGE_CONTENT';
}
