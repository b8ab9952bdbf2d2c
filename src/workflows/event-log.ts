import { condition, proxySinks, setHandler, workflowInfo } from '@temporalio/workflow';
import {
  type AgentEvent,
  type AgentEventType,
  type ClosedRunEvents,
  CLOSED_EVENTS_BUDGET_CHARS,
  closedLog,
} from '../common/events.ts';
import { eventsQuery, waitForEventsUpdate } from '../common/workflow-definitions.ts';
import type { LiveEventSinks } from '../live-text/message.ts';

const { toolkitLiveEvents } = proxySinks<LiveEventSinks>();

/** How a run's parts add an event to its log (the turn's tags already added). */
export type Emit = (type: AgentEventType, message: string, payload?: Record<string, unknown>) => void;
/**
 * The run's events, kept in workflow state. Readers use the query (events after a seq, no history
 * cost); each event is also handed to the worker's live channel as it is logged (a sink: no history,
 * no command), so that subscribed readers need not ask. The long-poll update stays for clients of earlier versions and for the histories in which
 * they sent it: a run recorded with it must find its handler when it replays.
 */
export class EventLog {
  readonly #events: AgentEvent[] = [];
  /** The seq before this log's first event: a session continued-as-new keeps counting. */
  readonly #offset: number;
  #finished = false;
  #released = false;

  constructor(offset = 0) {
    this.#offset = offset;
    setHandler(eventsQuery, (afterSeq) => this.#events.slice(Math.max(0, (afterSeq ?? 0) - this.#offset)), {
      description: 'The events after the seq given (0: all), in order. Costs the run no history.',
    });
    setHandler(
      waitForEventsUpdate,
      async (afterSeq) => {
        await condition(() => this.lastSeq > (afterSeq ?? 0) || this.#finished || this.#released);
        return { lastSeq: this.lastSeq, finished: this.#finished };
      },
      { description: 'Kept for readers of earlier versions: answers once events after the seq given exist.' },
    );
  }

  get lastSeq(): number {
    return this.#offset + this.#events.length;
  }

  emit(type: AgentEventType, message: string, payload: Record<string, unknown> = {}): void {
    const event = { seq: this.lastSeq + 1, type, message, payload, timestamp: new Date().toISOString() };
    this.#events.push(event);
    // Replayed events were said when they were first logged (Temporal would drop the call anyway).
    if (!workflowInfo().unsafe.isReplaying) toolkitLiveEvents.said(event);
  }

  /** Wakes every waiting reader for the last time. */
  finish(): void {
    this.#finished = true;
  }

  /**
   * The log for the run's result ({@link ClosedRunEvents}): readers of a closed run read it from the
   * close event, with no worker. Within the budget, all events; over it, without `text_delta`, then
   * the newest that fit. One payload per run, however many events.
   */
  closed(budget = CLOSED_EVENTS_BUDGET_CHARS): ClosedRunEvents {
    return this.since(this.#offset, budget);
  }

  /** The events after `afterSeq` (a chat turn's, from where it started), as {@link closed} keeps them. */
  since(afterSeq: number, budget = CLOSED_EVENTS_BUDGET_CHARS): ClosedRunEvents {
    const from = Math.max(afterSeq, this.#offset);
    return closedLog(this.#events.slice(from - this.#offset), this.lastSeq, budget, from + 1);
  }

  /** Answers every waiting reader now (before continue-as-new); readers then follow the next run. */
  release(): void {
    this.#released = true;
  }
}
