/**
 * Benchmark (not a test): what a sub-agent call costs against a plain tool call, in the same run.
 * Each run of the `boss` agent makes one plain tool call (`echo`), then one sub-agent call
 * (`agent_helper`: a child workflow whose instant model answers at once), then answers. The boss's
 * model notes when each of its steps is asked for, so the time between steps 1 and 2 is a plain
 * call's round trip and between steps 2 and 3 a sub-agent call's, each with one instant model step.
 * Also: the parent's history events for each kind of call. Writes bench/results/sub-agents.json and .md.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import type { ModelAdapter, ModelRequest, ModelResponse } from '../src/models/model-adapter.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../src/tools/connector-base.ts';
import { startBenchWorker } from './embedded-worker.ts';
import { writeResults } from './write-results.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const WARM_UP = 2;
Runtime.install({ logger: new DefaultLogger('ERROR') });

class EchoTool extends BaseConnectorTool {
  readonly name = 'echo';
  readonly description = 'Says the text back';
  readonly parameters = z.object({ text: z.string() });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: String(args.text), metadata: {} };
  }
}

/** When the boss's model was asked for each step, by run (its prompt). */
const asked = new Map<string, number[]>();

const boss: ModelAdapter = {
  specificationVersion: 'toolkit-agent.model.v1',
  modelId: 'boss',
  async generate(request: ModelRequest): Promise<ModelResponse> {
    const prompt = request.messages.find((m) => m.role === 'user')!.content;
    const times = asked.get(prompt) ?? [];
    times.push(performance.now());
    asked.set(prompt, times);
    const results = request.messages.filter((m) => m.role === 'tool').length;
    if (results === 0) return { text: '', toolCalls: [{ id: 'plain', name: 'echo', args: { text: 'hi' } }] };
    if (results === 1)
      return { text: '', toolCalls: [{ id: 'sub', name: 'agent_helper', args: { task: 'say hi' } }] };
    return { text: 'done', toolCalls: [] };
  },
};
const helper: ModelAdapter = {
  specificationVersion: 'toolkit-agent.model.v1',
  modelId: 'helper',
  async generate(): Promise<ModelResponse> {
    return { text: 'hi', toolCalls: [] };
  },
};

const bench = await startBenchWorker({
  boss: { llm: boss, tools: [new EchoTool()], subAgents: { helper: 'helper' }, liveText: false },
  helper: { llm: helper, liveText: false },
});

interface Sample {
  plainMs: number;
  subMs: number;
}

async function measure(i: number): Promise<Sample> {
  const prompt = `run ${i}`;
  const result = await bench.agents.run('boss', prompt);
  if (result.output !== 'done' || result.metadata.sub_runs?.[0]?.stop_reason !== 'completed')
    throw new Error(`unexpected result ${JSON.stringify(result)}`);
  const [t1, t2, t3] = asked.get(prompt)!;
  return { plainMs: t2! - t1!, subMs: t3! - t2! };
}

/** Parent history events between the model step that asked for each call and the next one. */
async function historyEventsPerCall(): Promise<{ plain: number; sub: number }> {
  const handle = await bench.agents.start('boss', 'history');
  await handle.result();
  const events = (await handle.workflow.fetchHistory()).events ?? [];
  const modelSteps = events
    // The first model step is taken by the run's opening step (openRun).
    .map((e, i) =>
      ['openRun', 'callModel'].includes(e.activityTaskScheduledEventAttributes?.activityType?.name ?? '')
        ? i
        : -1,
    )
    .filter((i) => i >= 0);
  return { plain: modelSteps[1]! - modelSteps[0]!, sub: modelSteps[2]! - modelSteps[1]! };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

try {
  for (let i = 0; i < WARM_UP; i++) await measure(-1 - i);
  const samples: Sample[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await measure(i));
  const plain = median(samples.map((s) => s.plainMs));
  const sub = median(samples.map((s) => s.subMs));
  const history = await historyEventsPerCall();
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    runs: RUNS,
    plain_tool_call_ms: plain,
    sub_agent_call_ms: sub,
    ratio: sub / plain,
    parent_history_events_plain_call: history.plain,
    parent_history_events_sub_agent_call: history.sub,
  };
  const f = (n: number) => n.toFixed(2);
  const table = [
    '# A sub-agent call against a plain tool call',
    '',
    `Measured ${results.date} on Node ${results.node}, embedded server, instant models; each run makes one plain`,
    `tool call and one sub-agent call (a child workflow answering at once); ${RUNS} runs; medians. Each figure`,
    'is the time between two model steps of the parent, so it includes one (instant) model step.',
    '',
    '| measure | plain tool call | sub-agent call |',
    '| --- | --- | --- |',
    `| time | ${f(plain)} ms | ${f(sub)} ms (${f(results.ratio)}×) |`,
    `| parent history events | ${history.plain} | ${history.sub} |`,
    '',
  ].join('\n');
  await writeResults('sub-agents', results, table);
} finally {
  await bench.stop();
}
