import { ConfigurationError } from '../errors.ts';

/** A limit of the definition, checked: a number above 0 (a whole number from 0 when `whole`), or undefined. */
export function positive(
  agent: string,
  field: string,
  value: number | undefined,
  whole = false,
): number | undefined {
  if (value === undefined) return undefined;
  const valid = typeof value === 'number' && (whole ? Number.isInteger(value) && value >= 0 : value > 0);
  if (!valid) {
    throw new ConfigurationError(
      `Agent "${agent}": ${field} must be ${whole ? 'a whole number of at least 0' : 'a number above 0'} (got ${String(value)}).`,
    );
  }
  return value;
}
