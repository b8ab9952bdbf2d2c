import { ConfigurationError } from '../errors.ts';
import type { LiveEventMessage, LiveTextMessage } from './message.ts';
import { OpenSteps } from './open-steps.ts';

export type { LiveEventMessage, LiveStepKey, LiveTextMessage } from './message.ts';

/**
 * Carries live text from the workers' model steps to the readers of the runs (`liveChannel` of
 * `createAgentWorker` and `AgentClient`). The default is in-process: a worker and the readers in
 * the same process (an `Agent`, an embedded server, a chat handler beside its worker). Processes
 * apart can share one by implementing this (a message bus, PostgreSQL LISTEN/NOTIFY). A reader that
 * hears nothing gets a step's text when the step answers, from the run's events. A channel with
 * `publishEvent` and `subscribeEvents` also carries the runs' events, so that readers need not read
 * the runs while they wait. Messages are best effort: one lost costs latency, never text or events.
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
  /**
   * Optional: called by the worker with each event a workflow task logged, once the task's code has
   * run (Temporal's workflow sinks; never for a replay); must not throw or block. A channel that
   * carries events lets readers learn of a tool call, an approval or a turn's end without reading
   * the run; one without these methods leaves readers polling, as before.
   */
  publishEvent?(message: LiveEventMessage): void;
  /** Optional, with {@link LiveTextChannel.publishEvent}: each event said about runs of `workflowId`, until the returned function is called. */
  subscribeEvents?(workflowId: string, listener: (message: LiveEventMessage) => void): () => void;
}

/** `liveChannel` of a worker or client: a channel, or `false` for none (readers poll). */
export type LiveChannelOption = LiveTextChannel | false | undefined;

/**
 * Live text and the runs' events within one process: listeners by workflow id, messages handed
 * over synchronously. It keeps the text of each step in flight until the step closes, and gives it
 * to a listener as it subscribes.
 */
export class InProcessLiveChannel implements LiveTextChannel {
  readonly #text = new Listeners<LiveTextMessage>();
  readonly #events = new Listeners<LiveEventMessage>();
  readonly #open = new OpenSteps();

  publish(message: LiveTextMessage): void {
    this.#open.note(message);
    this.#text.tell(message.workflowId, message);
  }

  subscribe(workflowId: string, listener: (message: LiveTextMessage) => void): () => void {
    const unsubscribe = this.#text.add(workflowId, listener);
    for (const said of this.#open.of(workflowId)) tell(listener, said);
    return unsubscribe;
  }

  publishEvent(message: LiveEventMessage): void {
    this.#events.tell(message.workflowId, message);
  }

  subscribeEvents(workflowId: string, listener: (message: LiveEventMessage) => void): () => void {
    return this.#events.add(workflowId, listener);
  }
}

/** Listeners by workflow id, each told synchronously. */
class Listeners<T> {
  readonly #byWorkflow = new Map<string, Set<(message: T) => void>>();

  tell(workflowId: string, message: T): void {
    for (const listener of [...(this.#byWorkflow.get(workflowId) ?? [])]) tell(listener, message);
  }

  add(workflowId: string, listener: (message: T) => void): () => void {
    let listeners = this.#byWorkflow.get(workflowId);
    if (!listeners) this.#byWorkflow.set(workflowId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.#byWorkflow.get(workflowId) === listeners)
        this.#byWorkflow.delete(workflowId);
    };
  }
}

/** Calls a listener: a reader's failure is its own (the step goes on, the other readers hear it). */
function tell<T>(listener: (message: T) => void, message: T): void {
  try {
    listener(message);
  } catch {
    // Nothing to do: see above.
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
