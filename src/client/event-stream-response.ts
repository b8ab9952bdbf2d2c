import type { AgentEvent } from '../common/events.ts';
import { isTerminal, type EventsFrom } from './event-stream.ts';

/** Anything whose events can be read from a position: an `AgentRunHandle`. */
export interface EventSourceable {
  events(opts?: EventsFrom): AsyncIterable<AgentEvent>;
}

export interface EventStreamResponseOptions {
  /**
   * The `Last-Event-ID` header of a reconnecting `EventSource`: the stream resumes right after that
   * event, sub-agents' events included. Pass the request's header as it came (string, null or undefined).
   */
  lastEventId?: string | number | null;
  /** How long a browser waits before it reconnects (the `retry:` field). Default 1000 ms. */
  retryMs?: number;
  /** A comment line this often keeps proxies from closing a quiet stream. Default 15,000 ms. */
  keepAliveMs?: number;
}

/**
 * A run's events as a standard `Response` with `text/event-stream` (Server-Sent Events), for
 * browsers' `EventSource`. Each event is one message whose `id:` is the event's `cursor` (its
 * `seq`, or `12/3` for a sub-agent run's event) and whose `data:` is the event as JSON, so a reconnecting `EventSource` resumes with `Last-Event-ID`
 * (pass it as `lastEventId`). After the run's last event comes `event: end`: close the
 * `EventSource` then, or it reconnects. Return it from fetch-style handlers as is; with Node's
 * `http`, write its status and headers and pipe `Readable.fromWeb(response.body)` into the reply.
 *
 * @example
 * // Hono, Next.js route handlers, Deno, Bun, ...
 * app.get('/runs/:id/events', (c) =>
 *   eventStreamResponse(agents.getHandle(c.req.param('id')), {
 *     lastEventId: c.req.header('last-event-id'),
 *   }),
 * );
 */
export function eventStreamResponse(
  handle: EventSourceable,
  opts: EventStreamResponseOptions = {},
): Response {
  const after =
    opts.lastEventId === undefined || opts.lastEventId === null ? undefined : String(opts.lastEventId);
  const encoder = new TextEncoder();
  let events: AsyncIterator<AgentEvent> | undefined;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`retry: ${opts.retryMs ?? 1000}\n\n`));
      keepAlive = setInterval(() => {
        if (!done) controller.enqueue(encoder.encode(': keep-alive\n\n'));
      }, opts.keepAliveMs ?? 15_000);
    },
    async pull(controller) {
      events ??= handle.events(after ? { after } : {})[Symbol.asyncIterator]();
      try {
        const next = await events.next();
        if (next.done) return finish(controller);
        const event = next.value;
        // The cursor, not the seq: a sub-agent run's events have seqs of their own.
        const id = event.cursor ?? String(event.seq);
        controller.enqueue(encoder.encode(`id: ${id}\ndata: ${JSON.stringify(event)}\n\n`));
        if (isTerminal(event)) finish(controller);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        controller.enqueue(encoder.encode(`event: error\ndata: ${JSON.stringify({ message })}\n\n`));
        finish(controller);
      }
    },
    async cancel() {
      done = true;
      clearInterval(keepAlive);
      await events?.return?.();
    },
  });
  function finish(controller: ReadableStreamDefaultController<Uint8Array>): void {
    done = true;
    clearInterval(keepAlive);
    controller.enqueue(encoder.encode('event: end\ndata: {}\n\n'));
    controller.close();
  }
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  });
}
