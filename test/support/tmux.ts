import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { CLI, ROOT } from './cli.ts';
import { tmuxSocketPrefix } from './orphan-watchdog.ts';

const exec = promisify(execFile);

/** Whether tmux is installed (`.ci/run` installs Debian's package). */
export async function hasTmux(): Promise<boolean> {
  return exec('tmux', ['-V']).then(
    () => true,
    () => false,
  );
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A real terminal: `toolkit-agent <args>` in a detached tmux session of its own (own socket), with
 * keystrokes sent by `send-keys` and the screen read by `capture-pane`. The pane stays after the
 * command exits and shows `[exit N]`.
 */
export class TmuxTerminal {
  /** Named after the test run, whose watchdog stops it if the run is killed (global-setup.ts). */
  readonly socket = `${tmuxSocketPrefix(process.env.TOOLKIT_AGENT_TEST_RUN ?? 'solo')}${randomUUID().slice(0, 8)}`;

  private constructor() {}

  /** Starts the CLI with `args`; `pipe` is appended to the command line (e.g. `| cat -v`). */
  static async start(args: string[], env: Record<string, string>, pipe = ''): Promise<TmuxTerminal> {
    const terminal = new TmuxTerminal();
    const assignments = Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`);
    const command = [
      // yocto-spinner draws only when CI is unset; the test runner's colour switches are dropped too.
      'env -u CI -u FORCE_COLOR -u NO_COLOR TERM=xterm-256color',
      ...assignments,
      quote(process.execPath),
      quote(CLI),
      ...args.map(quote),
      pipe,
      '; echo "[exit $?]"',
    ].join(' ');
    await terminal.#tmux('new-session', '-d', '-s', 'cli', '-x', '160', '-y', '50', '-c', ROOT, command);
    await terminal.#tmux('set-option', '-t', 'cli', 'remain-on-exit', 'on');
    return terminal;
  }

  /**
   * A shell (bash, no startup files) in `cwd` with `env` added, as a person at a terminal has: type
   * commands into it with {@link TmuxTerminal.command}.
   */
  static async shell(env: Record<string, string>, cwd: string): Promise<TmuxTerminal> {
    const terminal = new TmuxTerminal();
    const assignments = Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`);
    const command = [
      'env -u CI -u FORCE_COLOR -u NO_COLOR TERM=xterm-256color',
      ...assignments,
      'bash --norc --noprofile',
    ].join(' ');
    await terminal.#tmux('new-session', '-d', '-s', 'cli', '-x', '200', '-y', '50', '-c', cwd, command);
    return terminal;
  }

  #commands = 0;

  /**
   * Types `line` into the shell and waits until it ends: its exit code and the screen since it was
   * typed. Fails after `timeoutMs`, showing the screen.
   */
  async command(line: string, timeoutMs = 120_000): Promise<{ code: number; output: string }> {
    const marker = `[done ${++this.#commands}:`;
    const before = (await this.screen()).length;
    await this.type(`${line}; echo "${marker}$?]"`);
    const escaped = marker.replace(/[[\]]/g, '\\$&');
    const screen = await this.waitFor(new RegExp(`^${escaped}(\\d+)\\]`, 'm'), timeoutMs);
    const code = Number(new RegExp(`^${escaped}(\\d+)\\]`, 'm').exec(screen)![1]);
    return { code, output: screen.slice(before) };
  }

  /** Types keys (tmux key names like `Enter` or `C-c`, or literal text). */
  async send(...keys: string[]): Promise<void> {
    await this.#tmux('send-keys', '-t', 'cli', ...keys);
  }

  /** Types a line and presses Enter. */
  async type(line: string): Promise<void> {
    await this.#tmux('send-keys', '-t', 'cli', '-l', line);
    await this.send('Enter');
  }

  /** The screen and its scrollback as text (wrapped lines joined). */
  async screen(opts: { escapes?: boolean } = {}): Promise<string> {
    const escapes = opts.escapes ? ['-e'] : [];
    return (await this.#tmux('capture-pane', '-p', '-J', ...escapes, '-S', '-', '-t', 'cli')).trimEnd();
  }

  /** Waits until the screen matches `pattern` (fails after `timeoutMs`, showing the screen). */
  async waitFor(pattern: RegExp, timeoutMs = 45_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`The screen never showed ${pattern}:\n${screen}`);
      await sleep(100);
    }
  }

  async close(): Promise<void> {
    await this.#tmux('kill-server').catch(() => undefined);
  }

  async #tmux(...args: string[]): Promise<string> {
    const { stdout } = await exec('tmux', ['-L', this.socket, ...args]);
    return stdout;
  }
}
