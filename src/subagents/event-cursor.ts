import { ConfigurationError } from '../errors.ts';

/**
 * Where a reader of a run's events (sub-agents' woven in) stands: the seqs from the run down to the
 * sub-agent run that logged the event, `12/3` for event 3 of the child run called at the
 * run's event 12. Cursors of one stream increase in the order a reader gets them (compare seq by
 * seq; a prefix comes first), and a stream resumed after a cursor goes on exactly after that event.
 * Text delivered live, before the batch that records it (src/live-text/), is at `12.40`: the 40
 * characters of the model's text written after event 12 (`chars`), which a resumed stream skips.
 */
export type EventCursor = readonly number[] & { readonly chars?: number };

/**
 * The cursor `text` names (`12`, `12/3`, `12/3.40`, ...); empty for nothing (from the start).
 * @throws ConfigurationError when it is not seqs joined by `/` (the last with `.<characters>`).
 */
export function parseCursor(text: string | number | null | undefined): EventCursor {
  if (text === undefined || text === null || text === '' || text === 0) return [];
  const parts = String(text).split('/');
  const [last, chars, ...more] = parts.pop()!.split('.');
  const seqs = [...parts, last].map(Number);
  const charCount = chars === undefined ? 0 : Number(chars);
  if (
    !seqs.every((seq) => Number.isSafeInteger(seq) && seq > 0) ||
    more.length > 0 ||
    !(Number.isSafeInteger(charCount) && charCount >= 0 && chars !== '')
  ) {
    throw new ConfigurationError(
      `An event cursor is positive seqs joined by "/" (like 12, 12/3 or 12/3.40), as an event's cursor says: got ${JSON.stringify(text)}.`,
    );
  }
  return charCount > 0 ? Object.assign(seqs, { chars: charCount }) : seqs;
}
