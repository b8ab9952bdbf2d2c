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

/** An agent to stop, and whether a run it leaves resumes later (a cluster and a task queue that outlive the process). */
interface Stopper {
  stop: () => Promise<void>;
  resumable: boolean;
}

const stoppers = new Set<Stopper>();
let listening = false;

/**
 * Stops this agent on an unhandled interrupt; returns the function that unregisters it. `resumable`:
 * its runs live on a cluster and task queue that outlive the process (else the interrupt ends them).
 */
export function stopOnInterrupt(stop: () => Promise<void>, resumable: boolean): () => void {
  const stopper = { stop, resumable };
  stoppers.add(stopper);
  if (!listening) {
    listening = true;
    for (const signal of SIGNALS) process.on(signal, onSignal);
  }
  return () => {
    stoppers.delete(stopper);
    if (stoppers.size === 0 && listening) {
      listening = false;
      for (const signal of SIGNALS) process.off(signal, onSignal);
    }
  };
}

function onSignal(signal: NodeJS.Signals): void {
  const all = [...stoppers].map(({ stop }) => stop().catch(() => undefined));
  const resumable = [...stoppers].every((stopper) => stopper.resumable);
  // A program with a handler of its own decides what comes next (as with Temporal's own handling,
  // the agents' workers stop). signal-exit (used by dependencies) only acts when nothing else listens.
  const others = process.listeners(signal).filter((l) => l !== onSignal && !isSignalExit(l));
  if (others.length) return;
  process.stderr.write(
    resumable
      ? `\nInterrupted (${signal}): the agent's worker stopped. A run in progress goes on when a worker serves its task queue again.\n`
      : `\nInterrupted (${signal}): the agent stopped. Its runs were on a temporary server and task queue, so they end here; ` +
          'give the agent `temporal` (a cluster and a taskQueue) for runs that outlive the process.\n',
  );
  const deadline = new Promise((resolve) => setTimeout(resolve, STOP_WITHIN_MS).unref());
  void Promise.race([Promise.all(all), deadline]).then(() => process.exit(signal === 'SIGINT' ? 130 : 143));
}

/** signal-exit's listener, which re-raises the signal itself only when it is the last one listening. */
function isSignalExit(listener: (...args: never[]) => unknown): boolean {
  return listener.toString().includes('an exit is coming');
}
