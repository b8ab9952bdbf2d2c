/**
 * Benchmark (not a test): what a structured answer costs against a plain one, in the same run of the
 * benchmark. The agent calls one tool and then answers, through the real `@ai-sdk/openai` client
 * against a local stand-in of OpenAI's Chat Completions API (the one the tests use); the structured
 * runs send the schema natively (`response_format`). Runs are taken in turns (plain, structured) on
 * one embedded server so that noise hits both alike. Per run: wall time, provider requests, history
 * events and bytes, activities. Writes bench/results/structured-output.json and .md.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import { AgentClient, type AgentRunHandle } from '../src/client/agent-client.ts';
import { EmbeddedTemporalServer } from '../src/embedded/dev-server.ts';
import { InMemoryMemoryStore } from '../src/memory/in-memory.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../src/tools/connector-base.ts';
import { createAgentWorker } from '../src/worker.ts';
import { startOpenAIChatServer } from '../test/support/providers/openai-chat-server.ts';
import type { ProviderTurn } from '../test/support/providers/scripted-provider.ts';
import { writeResults } from './write-results.ts';

const RUNS = 15;
const WARM_UP = 2;
Runtime.install({ logger: new DefaultLogger('ERROR') });

const Triage = z.object({ priority: z.enum(['low', 'high']), team: z.string(), summary: z.string() });
const ANSWER = { priority: 'high', team: 'billing', summary: 'Invoice exports fail since 09:00.' };

class TicketTool extends BaseConnectorTool {
  readonly name = 'read_ticket';
  readonly description = 'Reads a ticket';
  readonly parameters = z.object({ id: z.number() });
  async run(_context: ToolContext, _args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: 'Invoice exports fail since 09:00.', metadata: {} };
  }
}

/** The stand-in answers from the request: a tool call first, then the answer (JSON when asked for it). */
function turn(body: Record<string, unknown>): ProviderTurn {
  const messages = body.messages as Array<{ role: string }>;
  if (messages.at(-1)!.role !== 'tool') {
    return { toolCalls: [{ id: `call_${randomUUID().slice(0, 8)}`, name: 'read_ticket', args: { id: 7 } }] };
  }
  return {
    text: body.response_format ? JSON.stringify(ANSWER) : `Priority high, billing: ${ANSWER.summary}`,
  };
}

const provider = await startOpenAIChatServer(Array.from({ length: 4 * (RUNS + WARM_UP) + 8 }, () => turn));
const server = await EmbeddedTemporalServer.start();
const nativeConnection = await NativeConnection.connect({ address: server.address });
const connection = await Connection.connect({ address: server.address });
const taskQueue = `bench-structured-${randomUUID()}`;
const worker = await createAgentWorker({
  connection: nativeConnection,
  taskQueue,
  memoryStore: new InMemoryMemoryStore(),
  agents: {
    triage: {
      llm: createOpenAI({ apiKey: 'sk-bench', baseURL: `${provider.url}/v1` }).chat('gpt-bench'),
      tools: [new TicketTool()],
      liveText: false,
    },
  },
});
const running = worker.run();
const agents = new AgentClient({ client: new Client({ connection }), taskQueue });

interface Sample {
  ms: number;
  requests: number;
  events: number;
  bytes: number;
  activities: number;
}

async function measure(structured: boolean): Promise<Sample> {
  const before = provider.bodies.length;
  const start = performance.now();
  const handle: AgentRunHandle<unknown> = structured
    ? await agents.start('triage', 'Triage ticket 7', { output: Triage })
    : await agents.start('triage', 'Triage ticket 7');
  const result = await handle.result();
  const ms = performance.now() - start;
  if (structured && JSON.stringify(result.output) !== JSON.stringify(ANSWER))
    throw new Error(`unexpected output ${JSON.stringify(result.output)}`);
  const history = await handle.workflow.fetchHistory();
  const events = history.events ?? [];
  return {
    ms,
    requests: provider.bodies.length - before,
    events: events.length,
    bytes: JSON.stringify(history).length,
    activities: events.filter((e) => e.activityTaskScheduledEventAttributes).length,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const summary = (samples: Sample[]) => ({
  median_ms: median(samples.map((s) => s.ms)),
  provider_requests_per_run: median(samples.map((s) => s.requests)),
  history_events_per_run: median(samples.map((s) => s.events)),
  history_bytes_per_run: median(samples.map((s) => s.bytes)),
  activities_per_run: median(samples.map((s) => s.activities)),
});

try {
  for (let i = 0; i < WARM_UP; i++) await Promise.all([measure(false), measure(true)]);
  const plain: Sample[] = [];
  const structured: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    plain.push(await measure(false));
    structured.push(await measure(true));
  }
  const p = summary(plain);
  const s = summary(structured);
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    runs: RUNS,
    plain: p,
    structured: s,
    ratio_time: s.median_ms / p.median_ms,
    extra_provider_requests_per_run: s.provider_requests_per_run - p.provider_requests_per_run,
    target_extra_provider_requests_per_run: 0,
  };
  const f = (n: number) => n.toFixed(2);
  const table = [
    '# A structured answer against a plain one',
    '',
    `Measured ${results.date} on Node ${results.node}, embedded server, the real \`@ai-sdk/openai\` client against a`,
    `local stand-in of Chat Completions; one tool call, then the answer; ${RUNS} runs of each, taken in turns; medians.`,
    '',
    '| measure | plain | structured (`output`, native `response_format`) |',
    '| --- | --- | --- |',
    `| run time | ${f(p.median_ms)} ms | ${f(s.median_ms)} ms (${f(results.ratio_time)}×) |`,
    `| provider requests per run | ${p.provider_requests_per_run} | ${s.provider_requests_per_run} (target: no extra) |`,
    `| activities per run | ${p.activities_per_run} | ${s.activities_per_run} |`,
    `| history events per run | ${p.history_events_per_run} | ${s.history_events_per_run} |`,
    `| history bytes per run | ${p.history_bytes_per_run} | ${s.history_bytes_per_run} |`,
    '',
  ].join('\n');
  await writeResults('structured-output', results, table);
} finally {
  worker.shutdown();
  await running;
  await connection.close();
  await nativeConnection.close();
  await server.close();
  await provider.close();
}
