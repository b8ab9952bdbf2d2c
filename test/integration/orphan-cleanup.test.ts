import { spawn } from 'node:child_process';
import { execFile } from 'node:child_process';
import { createConnection } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { hasTmux } from '../support/tmux.ts';

const exec = promisify(execFile);
const tmux = await hasTmux();

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Whether the tmux server of `socket` still answers. */
function tmuxAlive(socket: string): Promise<boolean> {
  return exec('tmux', ['-L', socket, 'list-sessions']).then(
    () => true,
    () => false,
  );
}

/**
 * What a test run starts as daemons (PostgreSQL, tmux servers) is stopped when the run is killed
 * outright: a program starts both the way global-setup.ts and the tests do, arms the same watchdog,
 * and is killed with SIGKILL (no handler, no teardown can run).
 */
describe.skipIf(!tmux)('servers a killed test run leaves behind', () => {
  it('the watchdog stops PostgreSQL and the tmux servers of a run killed with SIGKILL', async () => {
    const support = new URL('../support/', import.meta.url).pathname;
    const program = [
      `import { startPostgres } from '${support}postgres-server.ts';`,
      `import { TmuxTerminal } from '${support}tmux.ts';`,
      `import { cleanUpAfter, stopTmuxServers, tmuxSocketPrefix } from '${support}orphan-watchdog.ts';`,
      'const postgres = await startPostgres();',
      "const terminal = await TmuxTerminal.shell({}, '/tmp');",
      'const prefix = tmuxSocketPrefix(process.env.TOOLKIT_AGENT_TEST_RUN);',
      "cleanUpAfter(process.pid, [postgres.orphanCleanup ?? 'true', stopTmuxServers(prefix)].join('; '));",
      'console.log(JSON.stringify({ url: postgres.url ?? null, skipped: postgres.skipped, socket: terminal.socket }));',
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const run = `orphan${Date.now().toString(36)}`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', program], {
      env: { ...process.env, TOOLKIT_AGENT_TEST_RUN: run },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    for (let i = 0; i < 600 && !output.includes('\n'); i++) await sleep(100);
    const started = JSON.parse(output) as { url: string | null; skipped?: string; socket: string };
    expect(started.socket.startsWith(`toolkit-agent-test-${run}-`)).toBe(true);
    const port = started.url ? Number(new URL(started.url).port) : undefined;
    if (port) expect(await listening(port)).toBe(true);
    else console.warn(`PostgreSQL part skipped: ${started.skipped}`);
    expect(await tmuxAlive(started.socket)).toBe(true);

    child.kill('SIGKILL');
    // The watchdog looks once a second, then PostgreSQL takes a moment to shut down.
    let pgUp = port !== undefined;
    let tmuxUp = true;
    for (let i = 0; i < 300 && (pgUp || tmuxUp); i++) {
      await sleep(100);
      if (pgUp) pgUp = await listening(port!);
      if (tmuxUp) tmuxUp = await tmuxAlive(started.socket);
    }
    expect(tmuxUp).toBe(false);
    expect(pgUp).toBe(false);
  }, 90_000);
});
