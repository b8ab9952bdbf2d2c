import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { inject } from 'vitest';

export const ROOT = new URL('../..', import.meta.url).pathname;
/** The CLI's real entry point (run from source with this Node). */
export const CLI = `${ROOT}src/cli/main.ts`;
export const CLI_CONFIG = `${ROOT}test/fixtures/cli/toolkit-agent.config.ts`;

/**
 * The CLI on the test run's dev server (integration tests), with its prebuilt workflow bundle, its
 * home folder `home` and a task queue of its own.
 */
export function cliClusterEnv(home: string, taskQueue = `cli-${randomUUID()}`): Record<string, string> {
  return {
    TOOLKIT_AGENT_HOME: home,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    CLI_TASK_QUEUE: taskQueue,
  };
}

/** The test's environment without the colour switches the test runner sets, plus `extra`. */
export function cliEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.FORCE_COLOR;
  delete env.NO_COLOR;
  return { ...env, ...extra };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `toolkit-agent <args>` in a subprocess, with `input` on standard input. */
export function runCli(
  args: string[],
  opts: { env?: Record<string, string>; input?: string; cwd?: string } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: cliEnv(opts.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(opts.input ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** A long-running `toolkit-agent <args>` (server, worker, events --follow): its lines as they come. */
export function startCli(args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}) {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: cliEnv(opts.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  return {
    child,
    lines,
    exited,
    get stderr() {
      return stderr;
    },
    /** The first line matching `pattern` (waits for it; fails if the process exits first). */
    async waitForLine(pattern: RegExp): Promise<string> {
      for (;;) {
        const seen = lines.find((line) => pattern.test(line));
        if (seen) return seen;
        const woke = new Promise<void>((resolve) => waiters.push(resolve));
        const code = await Promise.race([woke.then(() => undefined), exited]);
        if (code !== undefined && !lines.some((line) => pattern.test(line))) {
          throw new Error(
            `toolkit-agent ${args.join(' ')} exited (${code}) before printing ${pattern}:\n${stderr}`,
          );
        }
      }
    },
  };
}
