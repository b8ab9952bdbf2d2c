import { spawn } from 'node:child_process';
import { cliEnv, ROOT } from './cli.ts';

/** How a program ended: its exit code and signal, whether it had to be killed, and all it wrote. */
export interface ProgramEnd {
  code: number | null;
  /** True when it was still running at the limit and was killed. */
  hung: boolean;
  output: string;
}

/**
 * Starts `node <args>` from the repository root (or `cwd`). `exit(limitMs)` waits for it to end by itself and
 * kills it at the limit (then `hung` is true); `waitFor` waits for a pattern in its output.
 */
export function startProgram(args: string[], env: Record<string, string>, cwd = ROOT) {
  return startCommand(process.execPath, args, env, cwd);
}

/** Starts `command <args>` (found on the PATH of `env`, else of this process), as {@link startProgram} does. */
export function startCommand(command: string, args: string[], env: Record<string, string>, cwd = ROOT) {
  const child = spawn(command, args, {
    cwd,
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const watchers: Array<() => void> = [];
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    for (const wake of watchers.splice(0)) wake();
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    child,
    get output() {
      return output;
    },
    async waitFor(pattern: RegExp, limitMs = 30_000): Promise<void> {
      const until = Date.now() + limitMs;
      while (!pattern.test(output)) {
        if (Date.now() > until) throw new Error(`no ${pattern} within ${limitMs} ms:\n${output}`);
        await Promise.race([
          new Promise<void>((resolve) => watchers.push(resolve)),
          closed,
          new Promise((resolve) => setTimeout(resolve, 200)),
        ]);
      }
    },
    async exit(limitMs: number): Promise<ProgramEnd> {
      let hung = false;
      const timer = setTimeout(() => {
        hung = true;
        child.kill('SIGKILL');
      }, limitMs);
      const code = await closed;
      clearTimeout(timer);
      return { code, hung, output };
    },
  };
}

/**
 * This machine's PATH without the repository's own Node (every node_modules/.bin): the system's
 * Node comes first, as on a user's machine (Node 20 here).
 */
export function systemPath(): string {
  return (process.env.PATH ?? '')
    .split(':')
    .filter((folder) => !folder.includes('node_modules'))
    .join(':');
}
