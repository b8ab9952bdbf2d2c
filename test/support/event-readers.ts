import { Client, type ConnectionLike, type WorkflowClientInterceptor } from '@temporalio/client';
import { expect } from 'vitest';
import { AgentRunHandle } from '../../src/client/run-handle.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { eventsQuery } from '../../src/common/workflow-definitions.ts';
import type { LiveTextChannel } from '../../src/live-text/channel.ts';
import { ONE_TOOL_CALL_RUN } from '../integration/helpers.ts';

/** A reader's client that counts the events queries it asks. */
export function countingClient(connection: ConnectionLike): { client: Client; queries: () => number } {
  let queries = 0;
  const counter: WorkflowClientInterceptor = {
    async query(input, next) {
      if (input.queryType === eventsQuery.name) queries += 1;
      return next(input);
    },
  };
  const client = new Client({ connection, interceptors: { workflow: [counter] } });
  return { client, queries: () => queries };
}

/** The channel without its events (a custom channel of earlier versions): its readers poll. */
export function textOnly(channel: LiveTextChannel): LiveTextChannel {
  return { publish: (m) => channel.publish(m), subscribe: (id, listener) => channel.subscribe(id, listener) };
}

/** A run read to its end through `channel`: its own events (not live text) in order, its text, and the events queries asked. */
export async function readRun(
  connection: ConnectionLike,
  workflowId: string,
  channel: LiveTextChannel,
): Promise<{ events: AgentEvent[]; text: string; queries: number }> {
  const { client, queries } = countingClient(connection);
  const handle = new AgentRunHandle(client.workflow.getHandle(workflowId), { liveChannel: channel });
  const events: AgentEvent[] = [];
  let text = '';
  for await (const event of handle.events()) {
    // Live text comes at the seq of the event before it (cursor `<seq>.<chars>`).
    if (event.type === 'text_delta') text += String(event.payload.text);
    if (!(event.type === 'text_delta' && event.cursor?.includes('.'))) events.push(event);
  }
  return { events, text, queries: queries() };
}

/** Every event of a run with one tool call once, in seq order, the tool's start and result among them. */
export function expectOneToolCallRun(events: AgentEvent[]): void {
  const seqs = events.map((event) => event.seq);
  expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
  expect(events.map((event) => event.type).filter((type) => type !== 'text_delta')).toEqual(
    ONE_TOOL_CALL_RUN,
  );
}
