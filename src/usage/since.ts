import { ConfigurationError } from '../errors.ts';

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * A point in time from what a person types: a duration back from `now` (`30m`, `12h`, `7d`, `2w`),
 * or a date or date-time (ISO 8601, e.g. `2026-11-01`). Throws a clear error on anything else.
 */
export function parseTimePoint(text: string, now: number = Date.now()): Date {
  const duration = /^(\d+)([mhdw])$/.exec(text.trim());
  if (duration) return new Date(now - Number(duration[1]) * UNITS[duration[2]!]!);
  const at = Date.parse(text);
  if (Number.isNaN(at))
    throw new ConfigurationError(
      `"${text}" is not a time: give a duration back from now (30m, 12h, 7d, 2w) or a date (2026-11-01).`,
    );
  return new Date(at);
}
