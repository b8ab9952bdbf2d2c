import type * as Core from '@ag-ui/core';
import type { AgentEvent } from '../common/events.ts';
import { AgUiEvents, type RunWait } from './ag-ui-events.ts';
import { OpenSpans } from './open-spans.ts';
import { eventId, isBefore, place, unsent, type StreamPosition } from './stream-position.ts';

/** One AG-UI event of a run's stream, and the SSE id a reader resumes after (`Last-Event-ID`). */
export interface IdentifiedEvent {
  event: Core.Event;
  id?: string;
}

/** Where the AG-UI run of a chat turn starts and what it ends at. */
export interface AgUiRunOptions {
  threadId: string;
  /** The AG-UI run's id (the client's `runId`, or the turn's id for a reader that joins it). */
  runId: string;
  /** The chat turn whose events these are: message ids count from its start. */
  turnId: string;
  /** A reader that resumes: the stream goes on after this position (its `Last-Event-ID`). */
  after?: StreamPosition;
  /**
   * A run that continues after interrupts: the turn's events up to these calls' waits were the run
   * that ended with them, so they are read (to know what is open) but not sent again.
   */
  continueAfter?: ReadonlySet<string>;
  /** The interrupts of a run that ends because calls wait: every call waiting now, found by the caller. */
  interrupts: (waits: RunWait[]) => Promise<Core.Interrupt[]>;
}

/**
 * A chat turn's events as one AG-UI run: `RUN_STARTED`, the turn's events in AG-UI's words
 * ({@link AgUiEvents}), and `RUN_FINISHED` with the turn's outcome and usage; or, when a call waits
 * for approval or a user's grant, `RUN_FINISHED` with an `interrupt` outcome (one `Interrupt` per
 * waiting call) once what is open is closed; when the step's frontend tool calls wait for the
 * client, `RUN_FINISHED` with the `success` outcome and their `pendingToolCallIds`. A failure of the
 * turn is `RUN_ERROR`.
 *
 * Each event after `RUN_STARTED` carries its place in the turn ({@link StreamPosition}), the same
 * for every reader, so a reader that resumes after one gets the rest once; what was open at that
 * place (a step, a text message, a sub-agent) is opened again first, as a new AG-UI run needs.
 */
export async function* agUiRun(
  eventType: typeof Core.EventType,
  events: AsyncIterable<AgentEvent>,
  options: AgUiRunOptions,
): AsyncGenerator<IdentifiedEvent> {
  const E = eventType;
  const { threadId, runId, after } = options;
  yield { event: { type: E.RUN_STARTED, threadId, runId } };
  const mapper = new AgUiEvents(E, options.turnId);
  const spans = new OpenSpans(E);
  const awaited = new Set(options.continueAfter);
  const position: StreamPosition = { events: 0, chars: 0 };
  // Whether this reader is past what it had: until then events are read, not sent.
  let sending = awaited.size === 0 && !after;
  let read = false;
  try {
    for await (const source of events) {
      read = true;
      const step = mapper.next(source);
      for (const event of step.events) {
        const at = place(position, event);
        const rest = awaited.size > 0 ? undefined : unsent(event, at, after);
        if (rest && !sending) {
          sending = true;
          for (const again of spans.open()) yield { event: again, id: eventId(at.start, options.turnId) };
        }
        spans.track(event);
        if (rest) yield { event: rest, id: eventId(at.end, options.turnId) };
      }
      if (awaited.size > 0) {
        for (const wait of step.waits) awaited.delete(wait.key);
        continue;
      }
      if (!sending && after && isBefore(position, after)) continue;
      if (!sending) {
        sending = true;
        for (const again of spans.open()) yield { event: again, id: eventId(position, options.turnId) };
      }
      if (step.waits.length > 0) {
        const asks = step.waits.filter((wait) => wait.kind !== 'frontend_tool');
        if (asks.length === 0) {
          // Frontend tool calls: the run is done, and the client answers them in the next run's messages.
          for (const event of spans.close()) yield { event };
          const pendingToolCallIds = step.waits.map((wait) => wait.key);
          yield {
            event: {
              type: E.RUN_FINISHED,
              threadId,
              runId,
              outcome: { type: 'success', pendingToolCallIds },
            },
          };
          return;
        }
        const interrupts = await options.interrupts(asks);
        for (const event of spans.close(interrupts.map((interrupt) => interrupt.id))) yield { event };
        yield {
          event: { type: E.RUN_FINISHED, threadId, runId, outcome: { type: 'interrupt', interrupts } },
        };
        return;
      }
      if (step.end) {
        for (const event of spans.close()) yield { event };
        const { outcome, result, usage } = step.end;
        yield {
          event: {
            type: E.RUN_FINISHED,
            threadId,
            runId,
            outcome: { type: outcome },
            ...(result === undefined ? {} : { result }),
            ...(usage ? { usage } : {}),
          },
        };
        return;
      }
    }
    const message = read
      ? 'The turn ended without its last event: read the thread again (GET) for what it did.'
      : `This thread has run ${runId} already (a run is run once): a new run needs a new runId.`;
    yield { event: { type: E.RUN_ERROR, message } };
  } catch (error) {
    yield { event: { type: E.RUN_ERROR, message: error instanceof Error ? error.message : String(error) } };
  }
}
