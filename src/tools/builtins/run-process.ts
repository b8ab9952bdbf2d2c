import { spawn } from 'node:child_process';
import { capText } from '../../common/text.ts';

/** The only variables a command sees: nothing of the worker's secrets. */
const ALLOWED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'TZ', 'TMPDIR', 'USER', 'SHELL'];
const MAX_OUTPUT_CHARS = 20_000;

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program in its own process group with `cwd`, an allow-listed environment and a timeout;
 * on timeout the whole group is killed (children too). Output is capped; `heartbeat` is called
 * while it runs so Temporal knows the activity is alive.
 */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; timeoutMs: number; signal?: AbortSignal; heartbeat?: () => void },
): Promise<ProcessResult> {
  const env = Object.fromEntries(
    ALLOWED_ENV.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
  );
  const child = spawn(command, args, {
    cwd: options.cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout = new CappedText();
  const stderr = new CappedText();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => stdout.add(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.add(chunk));
  let timedOut = false;
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, options.timeoutMs);
  const beat = setInterval(() => options.heartbeat?.(), 5_000);
  options.signal?.addEventListener('abort', killGroup, { once: true });
  return new Promise((resolve, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      clearInterval(beat);
      reject(error);
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timer);
      clearInterval(beat);
      killGroup(); // anything it left running in its group goes too
      resolve({
        exitCode,
        signal,
        timedOut,
        stdout: stdout.text(),
        stderr: stderr.text(),
      });
    });
  });
}

/** Keeps the first characters of a stream and counts the rest, so a flood costs no memory. */
class CappedText {
  #kept = '';
  #total = 0;

  add(chunk: string): void {
    this.#total += chunk.length;
    if (this.#kept.length <= MAX_OUTPUT_CHARS)
      this.#kept += chunk.slice(0, MAX_OUTPUT_CHARS + 1 - this.#kept.length);
  }

  text(): string {
    if (this.#total <= MAX_OUTPUT_CHARS) return this.#kept;
    const { text } = capText(this.#kept, MAX_OUTPUT_CHARS);
    return text.replace(/of \d+ characters\]$/, `of ${this.#total} characters]`);
  }
}

/** The result as the model reads it. */
export function describeProcess(result: ProcessResult, timeoutMs: number): string {
  const status = result.timedOut
    ? `killed after the ${Math.round(timeoutMs / 1000)} s timeout`
    : result.exitCode === null
      ? `ended by ${result.signal}`
      : `exit code ${result.exitCode}`;
  return [
    `[${status}]`,
    result.stdout && `stdout:\n${result.stdout}`,
    result.stderr && `stderr:\n${result.stderr}`,
  ]
    .filter(Boolean)
    .join('\n');
}
