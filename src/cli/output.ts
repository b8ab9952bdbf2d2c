import { styleText } from 'node:util';
import { useColor } from './color.ts';

/** Exit codes scripts can rely on. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** A failure to report as one line (no stack) with exit code 1, or 2 for a usage mistake. */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode: number = EXIT.failure) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}

/** A wrong argument or option: exit code 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = 'UsageError';
  }
}

type Style = Parameters<typeof styleText>[0];

/**
 * Styles `text` for `stream` when {@link useColor} says so: never with `NO_COLOR`, always with
 * `FORCE_COLOR`, else only on a terminal that has colours.
 */
export function paint(style: Style, text: string, stream: NodeJS.WriteStream = process.stdout): string {
  return useColor(stream) ? styleText(style, text, { validateStream: false }) : text;
}

/** One line of JSON on standard output (NDJSON when called per item). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** A plain table: columns padded to their widest cell, header dimmed on a terminal. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${paint('dim', line(header))}\n`);
  for (const row of rows) process.stdout.write(`${line(row)}\n`);
}

/** A note for people on standard error (standard output stays for results). */
export function note(text: string): void {
  process.stderr.write(`${paint('dim', text, process.stderr)}\n`);
}

/**
 * A failure for people, on standard error, in the one style every command uses: `error: ` (red on a
 * terminal), then what went wrong and what to do.
 */
export function printError(message: string): void {
  process.stderr.write(`${paint('red', 'error:', process.stderr)} ${message}\n`);
}

/** A payload value as text: strings as they are, anything else as JSON. */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
