import type { ServerResponse } from 'node:http';
import { json, startRecordingServer, type RecordedRequest, type RecordingServer } from '../http-server.ts';

/** One scripted answer of a provider: a model turn, or an HTTP error. */
export type ProviderTurn =
  | {
      text?: string;
      thinking?: string;
      toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
      usage?: { input: number; output: number };
      /** Stream the text in these pieces (default: the provider's own split). */
      chunks?: string[];
      /** Pause this long between streamed pieces (a model writing in real time). */
      chunkDelayMs?: number;
    }
  | { status: number; headers?: Record<string, string>; body: unknown };

export interface ProviderServer extends RecordingServer {
  /** The request bodies the server accepted or refused, parsed. */
  bodies: Array<Record<string, unknown>>;
  /** Answers still to give. */
  turns: ProviderTurn[];
  /** Answers written completely so far. */
  finished: number;
}

/**
 * A local stand-in for a model provider: validates each request as the real service does (a
 * provider-specific `validate` returns the real error body, or nothing), then answers the next
 * scripted turn, streamed (SSE) or whole, in the provider's documented format.
 */
export async function startProviderServer(options: {
  path: string;
  validate(body: Record<string, unknown>): { status: number; body: unknown } | undefined;
  answer(
    turn: Extract<ProviderTurn, { text?: string }>,
    body: Record<string, unknown>,
    response: ServerResponse,
  ): void;
  turns: ProviderTurn[];
}): Promise<ProviderServer> {
  const bodies: Array<Record<string, unknown>> = [];
  const server = await startRecordingServer((request: RecordedRequest, response) => {
    if (request.path !== options.path) return json(response, 404, { error: `no route ${request.path}` });
    const body = JSON.parse(request.body) as Record<string, unknown>;
    bodies.push(body);
    const refusal = options.validate(body);
    if (refusal) return json(response, refusal.status, refusal.body);
    const turn = options.turns.shift();
    if (!turn) return json(response, 500, { error: 'the test script has no more turns' });
    if ('status' in turn) return json(response, turn.status, turn.body, turn.headers);
    response.on('finish', () => (result.finished += 1));
    options.answer(turn, body, response);
  });
  const result = Object.assign(server, { bodies, turns: options.turns, finished: 0 });
  return result;
}

export function sse(
  response: ServerResponse,
  events: Array<{ event?: string; data: unknown }>,
  done?: string,
  delayMs = 0,
): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const write = ({ event, data }: { event?: string; data: unknown }) =>
    response.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  const end = () => {
    if (done) response.write(`data: ${done}\n\n`);
    response.end();
  };
  if (!delayMs) {
    events.forEach(write);
    return end();
  }
  let next = 0;
  const tick = () => {
    if (response.destroyed) return;
    if (next >= events.length) return end();
    write(events[next++]!);
    setTimeout(tick, delayMs);
  };
  tick();
}
