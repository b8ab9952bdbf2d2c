import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import { eventStreamResponse } from '../../src/client/event-stream-response.ts';

const event = (seq: number, type: AgentEvent['type']): AgentEvent => ({
  seq,
  type,
  message: type,
  payload: {},
  timestamp: new Date(0).toISOString(),
});

describe('eventStreamResponse', () => {
  it("ends the reader with the response: after the run's last event the events are returned, not left waiting", async () => {
    let ended = false;
    async function* events(): AsyncGenerator<AgentEvent> {
      try {
        yield event(1, 'run_started');
        yield event(2, 'run_completed');
        // A chat session's reader would wait here for more (the session runs on).
        await new Promise(() => undefined);
      } finally {
        ended = true;
      }
    }
    const response = eventStreamResponse({ events: () => events() });
    const text = await response.text();
    expect(text).toMatch(/id: 1\ndata: .*run_started[\s\S]*id: 2\ndata: .*run_completed[\s\S]*event: end/);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(true);
  });
});
