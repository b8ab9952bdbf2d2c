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

/** A scripted answer, or a function that answers from the request it gets (a model that reads its prompt). */
export type ProviderScript = Array<ProviderTurn | ((body: Record<string, unknown>) => ProviderTurn)>;

/** A hard context window: requests over it get the provider's own "prompt too long" error. */
export interface ContextLimit {
  maxInputTokens: number;
}

export interface ProviderServer extends RecordingServer {
  /** The request bodies the server accepted or refused, parsed. */
  bodies: Array<Record<string, unknown>>;
  /** Answers still to give. */
  turns: ProviderScript;
  /** Answers written completely so far. */
  finished: number;
  /** The status the server answered each request with, in order. */
  statuses: number[];
  /** The input tokens of each request, counted as {@link requestTokens} does. */
  inputTokens: number[];
}

/**
 * The input tokens of a request as the stand-in providers count them: one per three characters of
 * the JSON of its system prompt, messages and tools. Not any real tokenizer, but the same count
 * every time, and not the library's own estimate (which is four characters per token).
 */
export function requestTokens(body: Record<string, unknown>): number {
  return Math.ceil(JSON.stringify([body.system ?? null, body.messages, body.tools ?? null]).length / 3);
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
  turns: ProviderScript;
  /** A hard context window, and the provider's own refusal of a request over it. */
  limit?: ContextLimit & { refuse(tokens: number, max: number): { status: number; body: unknown } };
}): Promise<ProviderServer> {
  const bodies: Array<Record<string, unknown>> = [];
  const statuses: number[] = [];
  const inputTokens: number[] = [];
  const reply = (
    response: ServerResponse,
    status: number,
    body: unknown,
    headers?: Record<string, string>,
  ) => {
    statuses.push(status);
    json(response, status, body, headers);
  };
  const server = await startRecordingServer((request: RecordedRequest, response) => {
    if (request.path !== options.path) return json(response, 404, { error: `no route ${request.path}` });
    const body = JSON.parse(request.body) as Record<string, unknown>;
    bodies.push(body);
    const tokens = requestTokens(body);
    inputTokens.push(tokens);
    const refusal = options.validate(body);
    if (refusal) return reply(response, refusal.status, refusal.body);
    if (options.limit && tokens > options.limit.maxInputTokens) {
      const tooLong = options.limit.refuse(tokens, options.limit.maxInputTokens);
      return reply(response, tooLong.status, tooLong.body);
    }
    const entry = options.turns.shift();
    const turn = typeof entry === 'function' ? entry(body) : entry;
    if (!turn) return reply(response, 500, { error: 'the test script has no more turns' });
    if ('status' in turn) return reply(response, turn.status, turn.body, turn.headers);
    statuses.push(200);
    response.on('finish', () => (result.finished += 1));
    options.answer(
      options.limit && !turn.usage ? { ...turn, usage: { input: tokens, output: 5 } } : turn,
      body,
      response,
    );
  });
  const result = Object.assign(server, { bodies, turns: options.turns, statuses, inputTokens, finished: 0 });
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

/** A tool loop for the stand-ins: `steps - 1` steps that each call `add`, then the answer `Done adding.`. */
export function addingLoop(steps: number, callIdPrefix = 'toolu_'): ProviderTurn[] {
  return [
    ...Array.from({ length: steps - 1 }, (_, i) => ({
      toolCalls: [{ id: `${callIdPrefix}${i + 1}`, name: 'add', args: { a: i, b: 1 } }],
      usage: { input: 0, output: 20 },
    })),
    { text: 'Done adding.', usage: { input: 0, output: 7 } },
  ];
}
