/**
 * Relative day phrases as a time window in a time zone (CONNECTORS.md): `today`, `tomorrow`,
 * `yesterday`, `this week`, `next week` (ISO weeks, Monday first), a weekday (`monday`: today if it is
 * Monday, else the coming one; `next monday`: the first Monday after today) and ISO dates
 * (`2026-11-02`). Days start at local midnight, so a window across a DST change is 23 or 25 hours.
 */

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const PHRASE = new RegExp(
  `\\b(today|tomorrow|yesterday|this week|next week|(?:next |this )?(?:${WEEKDAYS.join('|')})|\\d{4}-\\d{2}-\\d{2})\\b`,
  'i',
);

export interface TimeWindow {
  timeMin: string;
  timeMax: string;
  /** The query without the phrase: the free text to search for. */
  rest: string;
}

/** The first day phrase in `query` as a window in `timeZone`; undefined when there is none. */
export function timeWindow(query: string, timeZone: string, now: Date): TimeWindow | undefined {
  const match = PHRASE.exec(query);
  if (!match) return undefined;
  const phrase = match[1]!.toLowerCase();
  const today = localDate(now, timeZone);
  let start: LocalDate;
  let days = 1;
  if (phrase === 'today') start = today;
  else if (phrase === 'tomorrow') start = addDays(today, 1);
  else if (phrase === 'yesterday') start = addDays(today, -1);
  else if (phrase === 'this week' || phrase === 'next week') {
    const monday = addDays(today, -((weekday(today) + 6) % 7));
    start = phrase === 'this week' ? monday : addDays(monday, 7);
    days = 7;
  } else if (/^\d{4}-\d{2}-\d{2}$/.test(phrase)) {
    const [y, m, d] = phrase.split('-').map(Number) as [number, number, number];
    start = { y, m, d };
  } else {
    const target = WEEKDAYS.indexOf(phrase.replace(/^(next|this) /, ''));
    let ahead = (target - weekday(today) + 7) % 7;
    if (phrase.startsWith('next ') && ahead === 0) ahead = 7;
    start = addDays(today, ahead);
  }
  const rest = `${query.slice(0, match.index)} ${query.slice(match.index + match[0].length)}`
    .replace(/\s+/g, ' ')
    .trim();
  return { timeMin: rfc3339(start, timeZone), timeMax: rfc3339(addDays(start, days), timeZone), rest };
}

interface LocalDate {
  y: number;
  m: number;
  d: number;
}

function localDate(instant: Date, timeZone: string): LocalDate {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' })
      .formatToParts(instant)
      .map((p) => [p.type, p.value]),
  );
  return { y: Number(parts.year), m: Number(parts.month), d: Number(parts.day) };
}

function addDays(date: LocalDate, days: number): LocalDate {
  const shifted = new Date(Date.UTC(date.y, date.m - 1, date.d + days));
  return { y: shifted.getUTCFullYear(), m: shifted.getUTCMonth() + 1, d: shifted.getUTCDate() };
}

function weekday(date: LocalDate): number {
  return new Date(Date.UTC(date.y, date.m - 1, date.d)).getUTCDay();
}

/** Minutes east of UTC in `timeZone` at `instant`. */
function offsetMinutes(instant: number, timeZone: string): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(new Date(instant))
    .find((p) => p.type === 'timeZoneName')!.value; // "GMT+02:00", or "GMT" for UTC
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0;
}

/** Local midnight of `date` in `timeZone`, written with its offset (RFC 3339). */
function rfc3339(date: LocalDate, timeZone: string): string {
  const wall = Date.UTC(date.y, date.m - 1, date.d);
  let offset = offsetMinutes(wall, timeZone);
  offset = offsetMinutes(wall - offset * 60_000, timeZone); // the offset in force at that midnight
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.y}-${pad(date.m)}-${pad(date.d)}T00:00:00${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
