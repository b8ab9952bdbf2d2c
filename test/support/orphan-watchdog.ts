import { spawn } from 'node:child_process';

/**
 * Runs `cleanup` (a shell command) once the process `pid` has ended, however it ended: a normal
 * exit, Ctrl-C, or a timeout's SIGTERM or SIGKILL that leaves no teardown a chance to run. The
 * watchdog is a small detached shell of its own, so it outlives the test run it watches; it checks
 * once a second and exits after the cleanup.
 */
export function cleanUpAfter(pid: number, cleanup: string): void {
  const script = `while kill -0 ${pid} 2>/dev/null; do sleep 1; done; ${cleanup}`;
  const watchdog = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  watchdog.unref();
}

/**
 * The tmux socket names of one test run start with this (followed by a random part), so the run's
 * watchdog can stop the terminals its tests left behind, and no one else's.
 */
export function tmuxSocketPrefix(runId: string): string {
  return `toolkit-agent-test-${runId}-`;
}

/** The shell command that stops every tmux server whose socket name starts with `prefix`. */
export function stopTmuxServers(prefix: string): string {
  const dir = `\${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)`;
  return `for socket in "${dir}/${prefix}"*; do [ -S "$socket" ] && tmux -S "$socket" kill-server 2>/dev/null; done; true`;
}
