/**
 * Benchmark (not a test): how long a token takes from the model to a chat page, through
 * createChatHandler's UI message stream over a durable chat session, against the same model through
 * the AI SDK's own `streamText` → `toUIMessageStreamResponse` in one process. The model is a
 * streaming stand-in (the `ai` package's MockLanguageModelV4) that stamps each delta with the time
 * it leaves; both are read over real HTTP by the AI SDK's DefaultChatTransport, which notes when each
 * stamp arrives. p50 / p95 for 1 and 100 concurrent chats (target: at most 150 ms added at p95 with
 * 100 chats), and the history a session adds per 1,000 streamed tokens with a page reading the
 * stream and without one (target: no more).
 * Writes bench/results/ui-stream.json and .md.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { DefaultChatTransport, readUIMessageStream, streamText, type UIMessageChunk } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createChatHandler } from '../src/ui-stream/chat-handler.ts';
import { serveFetch } from '../test/support/fetch-server.ts';
import { startBenchWorker } from './embedded-worker.ts';
import { writeResults } from './write-results.ts';

const TOKENS = 50;
const INTERVAL_MS = 40;
const CONCURRENCY = [1, 100];

Runtime.install({ logger: new DefaultLogger('ERROR') });

/** A model that writes TOKENS deltas, one every INTERVAL_MS, each `⟨ms⟩ ` stamped as it leaves. */
const model = new MockLanguageModelV4({
  doStream: async () => ({
    stream: new ReadableStream({
      async start(controller) {
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-start', id: 't' });
        for (let i = 0; i < TOKENS; i++) {
          await sleep(INTERVAL_MS);
          controller.enqueue({ type: 'text-delta', id: 't', delta: `⟨${performance.now().toFixed(3)}⟩ ` });
        }
        controller.enqueue({ type: 'text-end', id: 't' });
        controller.enqueue({
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: TOKENS, text: TOKENS, reasoning: 0 },
          },
        });
        controller.close();
      },
    }),
  }),
});

const bench = await startBenchWorker({ writer: { llm: model } });
const chat = createChatHandler({ client: bench.agents, agent: 'writer' });
const server = await serveFetch((request) =>
  new URL(request.url).pathname === '/baseline'
    ? streamText({ model, prompt: 'Write' }).toUIMessageStreamResponse()
    : chat(request),
);

/** One chat's answer read by the AI SDK's transport: each stamp's delay from the model to here. */
async function oneChat(api: string, chatId: string): Promise<number[]> {
  const transport = new DefaultChatTransport({ api: `${server.url}${api}` });
  const stream = await transport.sendMessages({
    chatId,
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
    messages: [{ id: `${chatId}-m1`, role: 'user', parts: [{ type: 'text', text: 'Write' }] }],
  });
  const delays: number[] = [];
  const timed = stream.pipeThrough(
    new TransformStream<UIMessageChunk, UIMessageChunk>({
      transform(chunk, controller) {
        const now = performance.now();
        if (chunk.type === 'text-delta') {
          for (const [, stamp] of chunk.delta.matchAll(/⟨([\d.]+)⟩/g)) delays.push(now - Number(stamp));
        }
        controller.enqueue(chunk);
      },
    }),
  );
  for await (const _ of readUIMessageStream({ stream: timed, terminateOnError: true }));
  if (delays.length !== TOKENS) throw new Error(`${chatId}: ${delays.length} of ${TOKENS} tokens arrived.`);
  return delays;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

async function historyBytes(sessionId: string): Promise<number> {
  const description = await bench.client.workflow.getHandle(`chat-${sessionId}`).describe();
  return Number(description.raw.workflowExecutionInfo?.historySizeBytes ?? 0);
}

try {
  const rows = [];
  for (const chats of CONCURRENCY) {
    const run = `c${chats}-${Date.now()}`;
    const ours = (
      await Promise.all(Array.from({ length: chats }, (_, i) => oneChat('/api/chat', `${run}-${i}`)))
    ).flat();
    const theirs = (
      await Promise.all(Array.from({ length: chats }, (_, i) => oneChat('/baseline', `${run}-b${i}`)))
    ).flat();
    rows.push({
      chats,
      durable_p50_ms: percentile(ours, 50),
      durable_p95_ms: percentile(ours, 95),
      ai_sdk_p50_ms: percentile(theirs, 50),
      ai_sdk_p95_ms: percentile(theirs, 95),
      added_p95_ms: percentile(ours, 95) - percentile(theirs, 95),
    });
  }
  // History a turn adds per 1,000 streamed tokens (the session's second turn, so its start is not
  // counted): read by a page through the UI stream, and sent with no reader.
  const turnBytes = async (id: string, turn: () => Promise<unknown>) => {
    await bench.agents.chatSession('writer', { sessionId: id }).send('Warm up');
    const before = await historyBytes(id);
    await turn();
    return (((await historyBytes(id)) - before) / TOKENS) * 1000;
  };
  const read = `history-read-${Date.now()}`;
  const unread = `history-unread-${Date.now()}`;
  const history = {
    with_ui_reader: await turnBytes(read, () => oneChat('/api/chat', read)),
    without_reader: await turnBytes(unread, () =>
      bench.agents.chatSession('writer', { sessionId: unread }).send('Write'),
    ),
  };

  const results = {
    date: new Date().toISOString(),
    node: process.version,
    tokens_per_answer: TOKENS,
    token_interval_ms: INTERVAL_MS,
    rows,
    history_bytes_per_1000_tokens: history,
    target_added_p95_ms_at_100_chats: 150,
  };
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const table = [
    '# Model token to chat page: the UI message stream of a durable chat',
    '',
    `Measured ${results.date} on Node ${results.node}, embedded server, ${TOKENS} tokens an answer, one every ${INTERVAL_MS} ms.`,
    'Durable: createChatHandler over a chat session. AI SDK: streamText → toUIMessageStreamResponse in one process, same model.',
    '',
    '| chats | durable p50 | durable p95 | AI SDK p50 | AI SDK p95 | added at p95 |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.chats} | ${ms(row.durable_p50_ms)} | ${ms(row.durable_p95_ms)} | ${ms(row.ai_sdk_p50_ms)} | ${ms(row.ai_sdk_p95_ms)} | ${ms(row.added_p95_ms)} |`,
    ),
    '',
    `History a turn adds per 1,000 streamed tokens: ${Math.round(history.with_ui_reader)} bytes with a page reading the UI stream, ${Math.round(history.without_reader)} without a reader.`,
    `Target: at most 150 ms added at p95 with 100 chats; no more history with a reader.`,
    '',
  ].join('\n');
  await writeResults('ui-stream', results, table);
} finally {
  await server.close();
  await bench.stop();
}
