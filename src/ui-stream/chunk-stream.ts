import type { UIMessageChunk } from 'ai';
import type { AgentEvent } from '../common/events.ts';
import { aiPackage } from './ai-package.ts';
import { approvalKey, EventChunks } from './event-chunks.ts';

/** How {@link chunkStream} reads the events: where the reader's message stands, and where it ends. */
export interface ChunkStreamOptions {
  messageId?: string;
  onError?: (error: unknown) => string;
  /**
   * A continuation after approvals: the reader's message already holds the events up to the
   * approval requests of these calls, so their chunks are not sent again (they still set the state).
   */
  continueAfterApprovals?: ReadonlySet<string>;
  /** End the stream after an approval request (the run waits; a chat page answers it, then resubmits). */
  endAtApproval?: boolean;
}

/**
 * The events as UI message chunks, through the `ai` package's `createUIMessageStream`. A reader
 * that goes away (a page closed or reloaded) cancels the stream, which stops reading the events.
 */
export function chunkStream(
  events: AsyncIterable<AgentEvent>,
  feature: string,
  options: ChunkStreamOptions = {},
): ReadableStream<UIMessageChunk> {
  const { createUIMessageStream } = aiPackage(feature);
  return createUIMessageStream({
    execute: ({ writer }) => writer.merge(ReadableStream.from(chunksOf(events, options))),
    onError: options.onError ?? ((error) => (error instanceof Error ? error.message : String(error))),
  });
}

async function* chunksOf(
  events: AsyncIterable<AgentEvent>,
  options: ChunkStreamOptions,
): AsyncGenerator<UIMessageChunk> {
  yield { type: 'start', ...(options.messageId ? { messageId: options.messageId } : {}) };
  const chunks = new EventChunks();
  const awaited = new Set(options.continueAfterApprovals);
  for await (const event of events) {
    const next = chunks.next(event);
    if (awaited.size > 0) {
      const key = approvalKey(event.payload);
      if (event.type === 'approval_requested' && key) awaited.delete(key);
      continue;
    }
    yield* next;
    if (options.endAtApproval && next.some((chunk) => chunk.type === 'tool-approval-request')) {
      yield* chunks.pause();
      return;
    }
  }
}
