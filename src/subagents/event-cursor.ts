import { ConfigurationError } from '../errors.ts';

/**
 * Where a reader of a run's events (sub-agents' woven in) stands: the seqs from the run down to the
 * sub-agent run that logged the event, `12/3` for event 3 of the child run called at the
 * run's event 12. Cursors of one stream increase in the order a reader gets them (compare seq by
 * seq; a prefix comes first), and a stream resumed after a cursor goes on exactly after that event.
 */
export type EventCursor = readonly number[];

/**
 * The cursor `text` names (`12`, `12/3`, ...); empty for nothing (from the start).
 * @throws ConfigurationError when it is not seqs joined by `/`.
 */
export function parseCursor(text: string | number | null | undefined): EventCursor {
  if (text === undefined || text === null || text === '' || text === 0) return [];
  const parts = String(text).split('/').map(Number);
  if (!parts.every((seq) => Number.isSafeInteger(seq) && seq > 0)) {
    throw new ConfigurationError(
      `An event cursor is positive seqs joined by "/" (like 12 or 12/3), as an event's cursor says: got ${JSON.stringify(text)}.`,
    );
  }
  return parts;
}
