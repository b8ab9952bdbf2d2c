import { ConfigurationError } from '../errors.ts';
import type { LiveTextMessage } from './message.ts';
import { OpenSteps } from './open-steps.ts';

export type { LiveStepKey, LiveTextMessage } from './message.ts';

/**
 * Carries live text from the workers' model steps to the readers of the runs (`liveChannel` of
 * `createAgentWorker` and `AgentClient`). The default is in-process: a worker and the readers in
 * the same process (an `Agent`, an embedded server, a chat handler beside its worker). Processes
 * apart can share one by implementing this (a message bus, PostgreSQL LISTEN/NOTIFY). A reader that
 * hears nothing gets a step's text when the step answers, from the run's events. Messages are best
 * effort: one lost costs latency, never text.
 */
export interface LiveTextChannel {
  /** Called by the worker for every message of every step; must not throw or block. */
  publish(message: LiveTextMessage): void;
  /**
   * Calls `listener` with each message about runs of `workflowId`, until the returned function is
   * called. A channel that keeps the text of the steps in flight first gives it (at once or soon
   * after), so that a reader that joins in the middle of a step gets its text whole; the listener
   * takes a piece it already has (the same offset) once.
   */
  subscribe(workflowId: string, listener: (message: LiveTextMessage) => void): () => void;
}

/** `liveChannel` of a worker or client: a channel, or `false` for none (readers poll). */
export type LiveChannelOption = LiveTextChannel | false | undefined;

/**
 * Live text within one process: listeners by workflow id, messages handed over synchronously. It
 * keeps the text of each step in flight until the step closes, and gives it to a listener as it
 * subscribes.
 */
export class InProcessLiveChannel implements LiveTextChannel {
  readonly #listeners = new Map<string, Set<(message: LiveTextMessage) => void>>();
  readonly #open = new OpenSteps();

  publish(message: LiveTextMessage): void {
    this.#open.note(message);
    const listeners = this.#listeners.get(message.workflowId);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener(message);
      } catch {
        // A reader's failure is its own: the step goes on, the other readers hear it.
      }
    }
  }

  subscribe(workflowId: string, listener: (message: LiveTextMessage) => void): () => void {
    let listeners = this.#listeners.get(workflowId);
    if (!listeners) this.#listeners.set(workflowId, (listeners = new Set()));
    listeners.add(listener);
    for (const said of this.#open.of(workflowId)) {
      try {
        listener(said);
      } catch {
        // As in publish: the listener's failure is its own.
      }
    }
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#listeners.get(workflowId) === listeners)
        this.#listeners.delete(workflowId);
    };
  }
}

const SHARED = Symbol.for('toolkit-agent.liveTextChannel');

/**
 * The process's own channel, the default of workers and clients (one per process, even when the
 * package is loaded twice).
 */
export function inProcessLiveChannel(): LiveTextChannel {
  const holder = globalThis as { [SHARED]?: LiveTextChannel };
  return (holder[SHARED] ??= new InProcessLiveChannel());
}

/** The channel an option names: the in-process one by default, none for `false`. */
export function resolveLiveChannel(option: LiveChannelOption, where: string): LiveTextChannel | undefined {
  if (option === false) return undefined;
  if (option === undefined) return inProcessLiveChannel();
  if (typeof option?.publish !== 'function' || typeof option.subscribe !== 'function') {
    throw new ConfigurationError(
      `${where}: liveChannel must have publish(message) and subscribe(workflowId, listener) (a LiveTextChannel), or be false for none.`,
    );
  }
  return option;
}
