/**
 * Ctrl-C (SIGINT) and SIGTERM for programs that use an {@link Agent} without handling signals
 * themselves: one line on standard error, the agents' workers stopped, and the process ends with the
 * signal's exit code (130, 143), instead of the uncaught "worker stopped" error and its stack trace.
 * A program with a handler of its own for the signal decides what comes next (the workers stop, as
 * with Temporal's own handling).
 */

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** How long the agents get to stop before the process ends anyway (a run in progress resumes later). */
const STOP_WITHIN_MS = 3_000;

const stoppers = new Set<() => Promise<void>>();
let listening = false;

/** Stops this agent on an unhandled interrupt; returns the function that unregisters it. */
export function stopOnInterrupt(stop: () => Promise<void>): () => void {
  stoppers.add(stop);
  if (!listening) {
    listening = true;
    for (const signal of SIGNALS) process.on(signal, onSignal);
  }
  return () => {
    stoppers.delete(stop);
    if (stoppers.size === 0 && listening) {
      listening = false;
      for (const signal of SIGNALS) process.off(signal, onSignal);
    }
  };
}

function onSignal(signal: NodeJS.Signals): void {
  const all = [...stoppers].map((stop) => stop().catch(() => undefined));
  // A program with a handler of its own decides what comes next (as with Temporal's own handling,
  // the agents' workers stop). signal-exit (used by dependencies) only acts when nothing else listens.
  const others = process.listeners(signal).filter((l) => l !== onSignal && !isSignalExit(l));
  if (others.length) return;
  process.stderr.write(
    `\nInterrupted (${signal}): the agent's worker stopped. A run in progress goes on when a worker serves its task queue again.\n`,
  );
  const deadline = new Promise((resolve) => setTimeout(resolve, STOP_WITHIN_MS).unref());
  void Promise.race([Promise.all(all), deadline]).then(() => process.exit(signal === 'SIGINT' ? 130 : 143));
}

/** signal-exit's listener, which re-raises the signal itself only when it is the last one listening. */
function isSignalExit(listener: (...args: never[]) => unknown): boolean {
  return listener.toString().includes('an exit is coming');
}
