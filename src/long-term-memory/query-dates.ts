import * as chrono from 'chrono-node';

/** A span of time, in epoch milliseconds, both ends inclusive. */
export interface TimeSpan {
  since: number;
  until: number;
}

/**
 * The time a query names ("last May", "in 2023", "yesterday", "on 8 May 2023"), read in English by
 * chrono-node (https://github.com/wanasit/chrono) relative to `now`, as the whole span it names: a
 * day, a month or a year. Undefined when the query names no time.
 */
export function spanNamedIn(query: string, now: Date): TimeSpan | undefined {
  const [found] = chrono.parse(query, { instant: now, timezone: 0 }, { forwardDate: false });
  if (!found) return lastMonthNamed(query, now) ?? yearNamed(query);
  const start = found.start;
  const end = found.end ?? found.start;
  const unit = start.isCertain('day') ? 'day' : start.isCertain('month') ? 'month' : 'year';
  if (unit === 'year' && !start.isCertain('year')) return undefined;
  return { since: startOf(start.date(), unit), until: endOf(end.date(), unit) };
}

/** The English month names, lower case, January first. */
export const MONTH_NAMES = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** "last May": the latest May before `now` (chrono reads "may" there as the verb). */
function lastMonthNamed(query: string, now: Date): TimeSpan | undefined {
  const name =
    /\blast (january|february|march|april|may|june|july|august|september|october|november|december)\b/i.exec(
      query,
    )?.[1];
  if (!name) return undefined;
  const month = MONTH_NAMES.indexOf(name.toLowerCase());
  const year = now.getUTCFullYear() - (month < now.getUTCMonth() ? 0 : 1);
  return { since: Date.UTC(year, month, 1), until: Date.UTC(year, month + 1, 1) - 1 };
}

/** A year on its own ("in 2023"), which chrono does not take for a date. */
function yearNamed(query: string): TimeSpan | undefined {
  const year = /\b(19\d\d|20\d\d)\b/.exec(query)?.[1];
  return year
    ? { since: Date.UTC(Number(year), 0, 1), until: Date.UTC(Number(year) + 1, 0, 1) - 1 }
    : undefined;
}

type Unit = 'day' | 'month' | 'year';

function startOf(date: Date, unit: Unit): number {
  const y = date.getUTCFullYear();
  if (unit === 'year') return Date.UTC(y, 0, 1);
  if (unit === 'month') return Date.UTC(y, date.getUTCMonth(), 1);
  return Date.UTC(y, date.getUTCMonth(), date.getUTCDate());
}

function endOf(date: Date, unit: Unit): number {
  const y = date.getUTCFullYear();
  if (unit === 'year') return Date.UTC(y + 1, 0, 1) - 1;
  if (unit === 'month') return Date.UTC(y, date.getUTCMonth() + 1, 1) - 1;
  return Date.UTC(y, date.getUTCMonth(), date.getUTCDate() + 1) - 1;
}
