import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The most events kept per stream: a client that comes back later than that starts a new call. */
const EVENTS_PER_STREAM = 1000;

/**
 * The messages one MCP session sent on its streams, so that a client whose connection dropped
 * reconnects with `Last-Event-ID` and gets what it missed, in order, once. Kept in memory for the
 * session's life (the runs themselves are durable in Temporal), the newest {@link EVENTS_PER_STREAM}
 * of each stream.
 */
export class SessionEventStore implements EventStore {
  readonly #streams = new Map<string, Array<{ id: string; message: JSONRPCMessage }>>();
  #next = 0;

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}|${++this.#next}`;
    const events = this.#streams.get(streamId) ?? [];
    events.push({ id, message });
    if (events.length > EVENTS_PER_STREAM) events.shift();
    this.#streams.set(streamId, events);
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const streamId = eventId.slice(0, eventId.lastIndexOf('|'));
    return this.#streams.has(streamId) ? streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = (await this.getStreamIdForEventId(lastEventId)) ?? '';
    const events = this.#streams.get(streamId) ?? [];
    const after = events.findIndex((event) => event.id === lastEventId);
    if (after >= 0) for (const event of events.slice(after + 1)) await send(event.id, event.message);
    return streamId;
  }
}
