import type { WorkflowHandle } from '@temporalio/client';
import type { AgentEvent } from '../common/events.ts';
import { streamRunEvents } from '../client/event-stream.ts';
import type { EventCursor } from './event-cursor.ts';
import type { LiveTextChannel } from '../live-text/channel.ts';

/** Reads a run's own events after a seq (as they happen, ending with the run). */
export type ReadEvents = (afterSeq: number) => AsyncIterable<AgentEvent>;

/** Opens the event stream of a child run by workflow id, after a seq of its own. */
export type OpenChildEvents = (workflowId: string, afterSeq: number) => AsyncIterable<AgentEvent>;

/**
 * A run's events with those of its sub-agent runs woven in, each with its `cursor`: when a
 * `tool_called` event names a child run (`payload.child_run`), the child's events are read from the
 * child workflow itself (they never pass through the parent's history) and yielded right after
 * that call, tagged `{ agent, sub_run, depth }`, its own children's too, recursively; the run's next
 * event comes once the child's stream has ended. The order is the same for every reader, so a
 * cursor (`12/3`: the third event of the child called at event 12) names one place in it, and
 * `after` resumes exactly there: no event twice, none missed. Children called in one step are read
 * one after the other (the second's events wait for the first to end). A child whose stream fails
 * is left (the parent's result event says why).
 */
export async function* withChildEvents(
  read: ReadEvents,
  open: OpenChildEvents,
  after: EventCursor = [],
  depth = 0,
): AsyncGenerator<AgentEvent> {
  const [resumeSeq, ...inChild] = after;
  // After a cursor of live text (`12.40`): the text written after the event that was delivered already.
  const skip = new TextSkip(inChild.length === 0 ? (after.chars ?? 0) : 0);
  const childAfter: EventCursor = after.chars ? Object.assign(inChild, { chars: after.chars }) : inChild;
  // Resuming after an event: it is read again (not yielded) in case its child's events come next.
  for await (const event of read(resumeSeq === undefined ? 0 : resumeSeq - 1)) {
    // Live text is delivered at the seq of the event before it, with a cursor of its own.
    const resumed = event.seq === resumeSeq && event.cursor === undefined;
    if (!resumed) {
      const shown = skip.past(event);
      if (shown) yield { ...shown, cursor: shown.cursor ?? String(shown.seq) };
    }
    const child = typeof event.payload.child_run === 'string' ? event.payload.child_run : undefined;
    if (!child || event.type !== 'tool_called') continue;
    const childOpen: ReadEvents = (afterSeq) => open(child, afterSeq);
    try {
      for await (const inner of withChildEvents(childOpen, open, resumed ? childAfter : [], depth + 1)) {
        // Grandchildren's events arrive tagged already; a child's own get its tags here.
        const payload =
          inner.payload.sub_run === undefined
            ? { ...inner.payload, agent: event.payload.child_agent, sub_run: child, depth: depth + 1 }
            : inner.payload;
        yield { ...inner, payload, cursor: `${event.seq}/${inner.cursor ?? inner.seq}` };
      }
    } catch {
      // The child failed or went away: its parent's tool_failed says why.
    }
  }
}

/**
 * The first `chars` characters of the model's text after the event a reader resumes from (it had
 * them live): dropped from the `text_delta` events that follow (a run's first step may have been
 * shown before its `step_started`), up to another attempt.
 */
class TextSkip {
  #left: number;
  #attempt: unknown;

  constructor(chars: number) {
    this.#left = chars;
  }

  past(event: AgentEvent): AgentEvent | undefined {
    if (this.#left === 0) return event;
    if (event.type !== 'text_delta' || typeof event.payload.text !== 'string') return event;
    const attempt = event.payload.attempt;
    if (this.#attempt !== undefined && attempt !== this.#attempt) {
      this.#left = 0;
      return event;
    }
    this.#attempt = attempt;
    const text = event.payload.text;
    const skipped = Math.min(this.#left, text.length);
    this.#left -= skipped;
    if (skipped === text.length) return undefined;
    return skipped === 0 ? event : { ...event, payload: { ...event.payload, text: text.slice(skipped) } };
  }
}

/** Opens a child run's events on the client of `parent` (the parent's own workflow handle). */
export function childEventsOf(parent: WorkflowHandle, live?: LiveTextChannel): OpenChildEvents {
  return (workflowId, afterSeq) => streamRunEvents(parent.client.getHandle(workflowId), afterSeq, { live });
}
