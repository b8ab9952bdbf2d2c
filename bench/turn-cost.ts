/**
 * Benchmark (not a test): what a turn costs in Temporal's billable actions, counted by the server
 * itself (the embedded dev server's `action` metric on `/metrics`, this bench's namespace only): a
 * plain run with one tool call, a run and a chat turn streaming 1,000 tokens to one live reader
 * (50 tokens every 100 ms: 2 s of writing), a run that calls a 3 s tool before it streams them (a
 * reader that polled would ask while the tool runs), and the same 1,000 tokens through `@temporalio/ai-sdk`'s
 * streaming (`streamText` with a `streamingTopic`, read by a `WorkflowStreamClient`). Each figure
 * is the median of REPEATS (default 3). Writes bench/results/turn-cost.json and .md.
 */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Client, Connection } from '@temporalio/client';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { AgentClient } from '../src/client/agent-client.ts';
import { EmbeddedTemporalServer } from '../src/embedded/dev-server.ts';
import { freePort } from '../src/embedded/free-port.ts';
import { InMemoryMemoryStore } from '../src/memory/in-memory.ts';
import type { ModelRequest } from '../src/models/model-adapter.ts';
import { ScriptedModel } from '../src/models/scripted.ts';
import { createAgentWorker } from '../src/worker.ts';
import { ActionCounter, type ActionCost } from '../test/support/action-count.ts';
import { NoopTool } from './loop-agent.ts';
import { streamingProvider } from './turn-cost/streaming-provider.ts';
import { writeResults } from './write-results.ts';
import { SlowTool } from '../test/support/slow-tool.ts';

const REPEATS = Number(process.env.REPEATS ?? 3);
const TOKENS = Array.from({ length: 1_000 }, (_, i) => `t${i} `);
const TEXT = TOKENS.join('');
const PER_TICK = 50;
const TICK_MS = 100;
const NAMESPACE = 'costs';

Runtime.install({ logger: new DefaultLogger('ERROR') });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const metricsPort = await freePort();
const server = await EmbeddedTemporalServer.start({ namespace: NAMESPACE, metricsPort });
const counter = new ActionCounter(`http://127.0.0.1:${metricsPort}/metrics`, NAMESPACE);
const costOf = (work: () => Promise<unknown>): Promise<ActionCost> => counter.costOf(work);

async function writeThousand(request: ModelRequest) {
  for (let i = 0; i < TOKENS.length; i++) {
    request.onTextDelta?.(TOKENS[i]!);
    if (i % PER_TICK === PER_TICK - 1) await sleep(TICK_MS);
  }
  return { text: TEXT };
}

const stops: Array<() => Promise<void>> = [];
try {
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: NAMESPACE });
  stops.push(async () => {
    await connection.close();
    await nativeConnection.close();
  });
  const taskQueue = `turn-cost-${randomUUID()}`;
  const ours = await createAgentWorker({
    connection: nativeConnection,
    namespace: NAMESPACE,
    taskQueue,
    memoryStore: new InMemoryMemoryStore(),
    agents: {
      plain: {
        llm: new ScriptedModel(
          Array.from({ length: REPEATS }, () => [
            { toolCalls: [{ name: 'noop', args: { n: 1 }, id: 'noop_1' }] },
            { text: 'done' },
          ]).flat(),
        ),
        tools: [new NoopTool()],
      },
      writer: { llm: new ScriptedModel(Array.from({ length: REPEATS * 3 }, () => writeThousand)) },
      finder: {
        llm: new ScriptedModel(
          Array.from({ length: REPEATS }, () => [
            { toolCalls: [{ name: 'slow', args: {}, id: 'slow_1' }] },
            writeThousand,
          ]).flat(),
        ),
        tools: [new SlowTool()],
      },
    },
  });
  const running = ours.run();
  stops.push(async () => {
    ours.shutdown();
    await running;
  });
  const aiSdkQueue = `turn-cost-ai-sdk-${randomUUID()}`;
  const aiSdk = await Worker.create({
    connection: nativeConnection,
    namespace: NAMESPACE,
    taskQueue: aiSdkQueue,
    workflowsPath: fileURLToPath(new URL('./turn-cost/ai-sdk-streaming.ts', import.meta.url)),
    plugins: [new AiSdkPlugin({ modelProvider: streamingProvider(TOKENS, PER_TICK, TICK_MS) })],
  });
  const aiSdkRunning = aiSdk.run();
  stops.push(async () => {
    aiSdk.shutdown();
    await aiSdkRunning;
  });
  const agents = new AgentClient({ client, taskQueue });

  const read = async (events: AsyncIterable<{ type: string; payload: Record<string, unknown> }>) => {
    let text = '';
    for await (const event of events) if (event.type === 'text_delta') text += String(event.payload.text);
    if (text !== TEXT)
      throw new Error(`The reader got ${text.length} characters, not the ${TEXT.length} written.`);
  };
  const samples: Record<'plain' | 'streamedRun' | 'slowToolRun' | 'chatTurn' | 'aiSdk', ActionCost[]> = {
    plain: [],
    streamedRun: [],
    slowToolRun: [],
    chatTurn: [],
    aiSdk: [],
  };
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    samples.plain.push(await costOf(() => agents.run('plain', 'Go')));
    samples.streamedRun.push(
      await costOf(async () => {
        const handle = await agents.start('writer', 'Write 1,000 tokens');
        await read(handle.events());
        await handle.result();
      }),
    );
    samples.slowToolRun.push(
      await costOf(async () => {
        const handle = await agents.start('finder', 'Find it, then write 1,000 tokens');
        await read(handle.events());
        await handle.result();
      }),
    );
    // A session opened by a first turn; its second turn is measured.
    const chat = agents.chatSession('writer', { sessionId: randomUUID() });
    await read(chat.stream('Write 1,000 tokens'));
    samples.chatTurn.push(await costOf(() => read(chat.stream('And 1,000 more'))));
    samples.aiSdk.push(
      await costOf(async () => {
        const workflowId = `ai-sdk-${randomUUID()}`;
        const handle = await client.workflow.start('aiSdkStreaming', {
          taskQueue: aiSdkQueue,
          workflowId,
          args: ['writer'],
        });
        const stream = WorkflowStreamClient.create(client, workflowId);
        let parts = 0;
        const reading = (async () => {
          for await (const _item of stream.subscribe('text')) parts += 1;
        })();
        const text = (await handle.result()) as string;
        await Promise.race([reading.catch(() => undefined), sleep(5_000)]);
        if (text !== TEXT || parts === 0)
          throw new Error(`The AI SDK run wrote ${text.length} characters, ${parts} parts read.`);
      }),
    );
  }
  const median = (costs: ActionCost[]) => {
    const sorted = [...costs].sort((a, b) => a.total - b.total);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  const results = Object.fromEntries(Object.entries(samples).map(([name, costs]) => [name, median(costs)]));
  const row = (what: string, cost: ActionCost) =>
    `| ${what} | ${cost.total} | ${Object.entries(cost.by)
      .map(([operation, n]) => `${operation} ${n}`)
      .join(', ')} |`;
  const markdown = [
    `Billable actions (the dev server's \`action\` metric), median of ${REPEATS}; 1,000 tokens written over 2 s, one live reader.`,
    '',
    '| what | actions | by operation |',
    '| --- | --- | --- |',
    row('toolkit-agent: a run with one tool call, nobody reading', results.plain!),
    row('toolkit-agent: a run streaming 1,000 tokens', results.streamedRun!),
    row('toolkit-agent: a run calling a 3 s tool, then streaming 1,000 tokens', results.slowToolRun!),
    row('toolkit-agent: a chat turn streaming 1,000 tokens', results.chatTurn!),
    row('@temporalio/ai-sdk: streamText streaming 1,000 tokens (workflow streams)', results.aiSdk!),
    '',
  ].join('\n');
  console.log(markdown);
  await writeResults('turn-cost', { repeats: REPEATS, results, samples }, markdown);
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await server.close();
}
