import type { AgentEvent } from '../common/events.ts';
import type { EventSourceable } from '../client/event-stream-response.ts';
import { parseCursor } from '../subagents/event-cursor.ts';
import { aiPackage, type UIMessageChunk } from './ai-package.ts';
import { chunkStream } from './chunk-stream.ts';

/**
 * One chunk of the AI SDK's UI message stream, as loosely as the package's own types can name it
 * without the `ai` package installed (it is an optional peer dependency). Name the `ai` package's
 * `UIMessageChunk` as the type argument of {@link toUIMessageChunkStream} to get its exact type.
 */
export interface UIStreamChunk {
  type: string;
  [field: string]: unknown;
}

/** A run (its handle), or a chat turn's events as `session.stream(prompt)` yields them. */
export type UIMessageSource = EventSourceable | AsyncIterable<AgentEvent>;

export interface UIMessageStreamOptions {
  /** The id of the assistant message (the `start` chunk's `messageId`). Default: the AI SDK's client picks one. */
  messageId?: string;
  /** A handle's events after this event's `cursor` (a reader that resumes). Default: from the start. */
  after?: string;
  /** The text of the `error` chunk a failure becomes. Default: the error's message. */
  onError?: (error: unknown) => string;
}

export interface UIMessageStreamResponseOptions extends UIMessageStreamOptions {
  /** Headers added to the response (the UI message stream's own are set). */
  headers?: Record<string, string>;
  /** Default 200. */
  status?: number;
}

const FEATURE = 'The AI SDK UI message stream (toUIMessageChunkStream, toUIMessageStreamResponse)';

/**
 * A run's or chat turn's events as the AI SDK's UI message chunks (`start`, `start-step`,
 * `text-*`, `reasoning-*`, `tool-*`, `data-*`, `finish-step`, `finish`; a failure as `error`), the
 * stream `useChat` and `readUIMessageStream` read. Built with the `ai` package's
 * `createUIMessageStream` (an optional peer dependency: install `ai`). For a `Response`, use
 * {@link toUIMessageStreamResponse}.
 *
 * @example
 * import type { UIMessageChunk } from 'ai';
 * const chunks = toUIMessageChunkStream<UIMessageChunk>(agents.getHandle(runId));
 * @throws MissingDependencyError when the `ai` package is not installed; ConfigurationError when
 * `after` is not an event cursor.
 * @see https://ai-sdk.dev/docs/ai-sdk-ui/stream-protocol
 */
export function toUIMessageChunkStream<Chunk extends UIStreamChunk = UIStreamChunk>(
  source: UIMessageSource,
  options: UIMessageStreamOptions = {},
): ReadableStream<Chunk> {
  // A bad resume point is the caller's error, said now rather than inside the stream.
  if (options.after !== undefined) parseCursor(options.after);
  const events = isIterable(source) ? source : source.events(options.after ? { after: options.after } : {});
  // The `ai` package's chunks are what the caller names as `Chunk` (its `UIMessageChunk`).
  return chunkStream(events, FEATURE, options) as ReadableStream<UIStreamChunk> as ReadableStream<Chunk>;
}

/**
 * A run's or chat turn's events as a standard `Response` in the AI SDK's UI message stream
 * protocol (Server-Sent Events of JSON chunks, `x-vercel-ai-ui-message-stream: v1`, `[DONE]` at the
 * end), what `useChat`'s `DefaultChatTransport` reads. Return it from a fetch-style route; for a whole
 * chat (POST, resume, approvals, stop) use {@link createChatHandler}.
 * @throws MissingDependencyError when the `ai` package is not installed.
 * @see https://ai-sdk.dev/docs/ai-sdk-ui/stream-protocol
 */
export function toUIMessageStreamResponse(
  source: UIMessageSource,
  options: UIMessageStreamResponseOptions = {},
): Response {
  const { createUIMessageStreamResponse } = aiPackage(FEATURE);
  return createUIMessageStreamResponse({
    stream: toUIMessageChunkStream<UIMessageChunk>(source, options),
    ...(options.status ? { status: options.status } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

function isIterable(source: UIMessageSource): source is AsyncIterable<AgentEvent> {
  return Symbol.asyncIterator in source;
}
