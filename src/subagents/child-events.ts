import type { WorkflowHandle } from '@temporalio/client';
import type { AgentEvent } from '../common/events.ts';
import { streamRunEvents } from '../client/event-stream.ts';

/** Opens the event stream of a child run by workflow id (from its start). */
export type OpenChildEvents = (workflowId: string) => AsyncIterable<AgentEvent>;

/**
 * A run's events with those of its sub-agent runs woven in: when a `tool_called` event names a
 * child run (`payload.child_run`), the child's events are read from the child workflow itself (they
 * never pass through the parent's history) and yielded tagged `{ agent, sub_run, depth }`, its own
 * children's too, recursively. The call's `tool_completed` / `tool_failed`, and the run's last event,
 * wait until the child's stream has ended, so a reader sees a child's events between its call and
 * its result. A child whose stream fails is left (the parent's result event says why).
 */
export async function* withChildEvents(
  events: AsyncIterable<AgentEvent>,
  open: OpenChildEvents,
  depth = 0,
): AsyncGenerator<AgentEvent> {
  const queue: AgentEvent[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  let failure: { error: unknown } | undefined;
  let stopped = false;
  const push = (event: AgentEvent): void => {
    queue.push(event);
    wake?.();
  };
  const children = new Map<string, Promise<void>>();
  const follow = async (workflowId: string, agent: unknown): Promise<void> => {
    try {
      for await (const event of withChildEvents(open(workflowId), open, depth + 1)) {
        if (stopped) return;
        // Grandchildren's events arrive tagged already; a child's own get its tags here.
        push(
          event.payload.sub_run === undefined
            ? { ...event, payload: { ...event.payload, agent, sub_run: workflowId, depth: depth + 1 } }
            : event,
        );
      }
    } catch {
      // The child failed or went away: its parent's tool_failed says why.
    }
  };
  const pump = (async () => {
    try {
      for await (const event of events) {
        if (stopped) return;
        const child = typeof event.payload.child_run === 'string' ? event.payload.child_run : undefined;
        if (child && event.type === 'tool_called' && !children.has(child)) {
          children.set(child, follow(child, event.payload.child_agent));
        } else if (child && isResult(event)) {
          await children.get(child);
        } else if (event.type === 'run_completed' || event.type === 'run_cancelled') {
          await Promise.all(children.values());
        }
        push(event);
      }
    } catch (error) {
      failure = { error };
    } finally {
      await Promise.all(children.values());
      done = true;
      wake?.();
    }
  })();
  try {
    for (;;) {
      const next = queue.shift();
      if (next) {
        yield next;
        continue;
      }
      if (done) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
    await pump;
    if (failure) throw failure.error;
  } finally {
    stopped = true;
  }
}

function isResult(event: AgentEvent): boolean {
  return event.type === 'tool_completed' || event.type === 'tool_failed';
}

/** Opens a child run's events on the client of `parent` (the parent's own workflow handle). */
export function childEventsOf(parent: WorkflowHandle): OpenChildEvents {
  return (workflowId) => streamRunEvents(parent.client.getHandle(workflowId));
}
