/**
 * Benchmark (not a test): how long a token takes from the model to a chat page, through
 * createChatHandler's UI message stream over a durable chat session, against the same model through
 * the AI SDK's own `streamText` → `toUIMessageStreamResponse` in one process. The model is a
 * streaming stand-in that stamps each delta with the time it leaves; every answer is read over real
 * HTTP by the AI SDK's DefaultChatTransport, which notes when each stamp arrives. Two shapes of ours:
 * the worker in this process (its in-process live channel), and the production shape, the worker in
 * a process of its own with the text through PostgresLiveChannel (a throwaway PostgreSQL server; the
 * shape is left out, saying why, without one). p50 / p95 for 1 and 100 concurrent chats (target: at
 * most 150 ms added at p95 with 100 chats, in both shapes), and the history a session adds per 1,000
 * streamed tokens with a page reading the stream and without one (target: no more).
 * Writes bench/results/ui-stream.json and .md.
 */
import { randomUUID } from 'node:crypto';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { DefaultChatTransport, readUIMessageStream, streamText, type UIMessageChunk } from 'ai';
import { AgentClient } from '../src/client/agent-client.ts';
import { PostgresLiveChannel } from '../src/live-text/postgres.ts';
import { createChatHandler } from '../src/ui-stream/chat-handler.ts';
import { startNodeProcess } from '../test/integration/processes.ts';
import { serveFetch } from '../test/support/fetch-server.ts';
import { startPostgres } from '../test/support/postgres-server.ts';
import { startBenchWorker } from './embedded-worker.ts';
import { epochNow, INTERVAL_MS, stampingModel, TOKENS } from './ui-stream/stamping-model.ts';
import { writeResults } from './write-results.ts';

const CONCURRENCY = [1, 100];

Runtime.install({ logger: new DefaultLogger('ERROR') });

const model = stampingModel();

const bench = await startBenchWorker({ writer: { llm: model } });
const chat = createChatHandler({ client: bench.agents, agent: 'writer' });
const fleet = await startFleet();
const server = await serveFetch((request) => {
  const path = new URL(request.url).pathname;
  if (path === '/baseline') return streamText({ model, prompt: 'Write' }).toUIMessageStreamResponse();
  if (path.startsWith('/fleet/')) return fleet.chat!(request);
  return chat(request);
});

/**
 * The production shape: a worker in a child process on the bench's server, its live text through
 * PostgresLiveChannel to this process's handler.
 */
async function startFleet() {
  const postgres = await startPostgres();
  if ('skipped' in postgres) return { skipped: postgres.skipped, chat: undefined, stop: async () => {} };
  const taskQueue = `bench-fleet-${randomUUID()}`;
  const channel = `bench_fleet_${randomUUID().replaceAll('-', '')}`;
  const worker = startNodeProcess('bench/ui-stream/fleet-worker.ts', {
    TEMPORAL_ADDRESS: bench.address,
    TASK_QUEUE: taskQueue,
    LIVE_PG_URL: postgres.url,
    LIVE_NOTIFY_CHANNEL: channel,
  });
  await worker.waitForLine(/^READY$/);
  const liveChannel = new PostgresLiveChannel({ connectionString: postgres.url, channel });
  const agents = new AgentClient({ client: bench.client, taskQueue, liveChannel });
  return {
    skipped: undefined,
    chat: createChatHandler({ client: agents, agent: 'writer' }),
    async stop() {
      worker.child.kill('SIGTERM');
      await worker.exited;
      await liveChannel.close();
      await postgres.stop();
    },
  };
}

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
        const now = epochNow();
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
    const apart = fleet.chat
      ? (
          await Promise.all(
            Array.from({ length: chats }, (_, i) => oneChat('/fleet/api/chat', `${run}-f${i}`)),
          )
        ).flat()
      : undefined;
    const theirs = (
      await Promise.all(Array.from({ length: chats }, (_, i) => oneChat('/baseline', `${run}-b${i}`)))
    ).flat();
    rows.push({
      chats,
      durable_p50_ms: percentile(ours, 50),
      durable_p95_ms: percentile(ours, 95),
      ...(apart
        ? {
            apart_p50_ms: percentile(apart, 50),
            apart_p95_ms: percentile(apart, 95),
            apart_added_p95_ms: percentile(apart, 95) - percentile(theirs, 95),
          }
        : {}),
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
  const optional = (value: number | undefined) => (value === undefined ? '—' : ms(value));
  const table = [
    '# Model token to chat page: the UI message stream of a durable chat',
    '',
    `Measured ${results.date} on Node ${results.node}, embedded server, ${TOKENS} tokens an answer, one every ${INTERVAL_MS} ms.`,
    'Durable: createChatHandler over a chat session, the worker in this process. Apart: the worker in a process of its own, the text through PostgresLiveChannel' +
      (fleet.skipped ? ` (not measured: ${fleet.skipped})` : '') +
      '. AI SDK: streamText → toUIMessageStreamResponse in one process, same model.',
    '',
    '| chats | durable p50 | durable p95 | added at p95 | apart p50 | apart p95 | apart added at p95 | AI SDK p50 | AI SDK p95 |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.chats} | ${ms(row.durable_p50_ms)} | ${ms(row.durable_p95_ms)} | ${ms(row.added_p95_ms)} | ${optional(row.apart_p50_ms)} | ${optional(row.apart_p95_ms)} | ${optional(row.apart_added_p95_ms)} | ${ms(row.ai_sdk_p50_ms)} | ${ms(row.ai_sdk_p95_ms)} |`,
    ),
    '',
    `History a turn adds per 1,000 streamed tokens: ${Math.round(history.with_ui_reader)} bytes with a page reading the UI stream, ${Math.round(history.without_reader)} without a reader.`,
    `Target: at most 150 ms added at p95 with 100 chats, in both shapes; no more history with a reader.`,
    '',
  ].join('\n');
  await writeResults('ui-stream', results, table);
} finally {
  await server.close();
  await fleet.stop();
  await bench.stop();
}
