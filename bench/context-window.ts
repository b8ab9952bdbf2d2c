/**
 * Benchmark (not a test): input tokens per model step over a 1,000-turn chat session, with and
 * without a context budget, and the extra model calls compaction costs per 100 turns (target: input
 * bounded by the budget at every mark; at most 5 extra calls per 100 turns). The model counts its
 * input as a provider does (here: one token per three characters of the request's JSON) and reports
 * it as `usage.input_tokens`, which calibrates the library's estimate. Both sessions run in the same
 * process on the embedded server. Writes bench/results/context-window.json and .md.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { DEFAULT_SUMMARY_PROMPT } from '../src/context/options.ts';
import type { ModelAdapter, ModelRequest, ModelResponse } from '../src/models/model-adapter.ts';
import { startBenchWorker } from './embedded-worker.ts';
import { writeResults } from './write-results.ts';

const TURNS = 1_000;
const MARKS = [10, 100, 1_000];
const BUDGET = 8_000;

Runtime.install({ logger: new DefaultLogger('ERROR') });

/** An instant model that counts what it is sent; summary requests are counted apart. */
class CountingModel implements ModelAdapter {
  readonly specificationVersion = 'toolkit-agent.model.v1';
  readonly modelId = 'counting';
  readonly answerInputs: number[] = [];
  summaryCalls = 0;

  async generate(request: ModelRequest): Promise<ModelResponse> {
    const input = Math.ceil(JSON.stringify([request.messages, request.tools]).length / 3);
    const usage = { input_tokens: input, output_tokens: 10, total_tokens: input + 10 };
    if (request.messages[0]?.content === DEFAULT_SUMMARY_PROMPT) {
      this.summaryCalls += 1;
      return {
        text: `The user chatted about ${this.answerInputs.length} topics; nothing to act on.`,
        toolCalls: [],
        usage,
      };
    }
    this.answerInputs.push(input);
    return { text: `Noted, thanks for message ${this.answerInputs.length}.`, toolCalls: [], usage };
  }
}

const unbounded = new CountingModel();
const bounded = new CountingModel();
const bench = await startBenchWorker({
  unbounded: { llm: unbounded, context: { compaction: false } },
  bounded: { llm: bounded, context: { maxInputTokens: BUDGET } },
});
const { agents, memoryStore } = bench;

async function converse(agent: string): Promise<number> {
  const session = agents.chatSession(agent, { memoryStore });
  const started = performance.now();
  for (let turn = 1; turn <= TURNS; turn++)
    await session.send(
      `Message ${turn}: a line of small talk about topic ${turn % 37}, nothing to remember.`,
    );
  return performance.now() - started;
}

try {
  const [unboundedMs, boundedMs] = await Promise.all([converse('unbounded'), converse('bounded')]);
  const rows = MARKS.map((mark) => ({
    turn: mark,
    input_tokens_without_budget: unbounded.answerInputs[mark - 1]!,
    input_tokens_with_budget: bounded.answerInputs[mark - 1]!,
  }));
  const largest = Math.max(...bounded.answerInputs);
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    turns: TURNS,
    budget: BUDGET,
    marks: rows,
    largest_input_with_budget: largest,
    bounded_at_every_step: largest <= BUDGET,
    compaction_calls: bounded.summaryCalls,
    extra_calls_per_100_turns: (bounded.summaryCalls / TURNS) * 100,
    target_extra_calls_per_100_turns: 5,
    ratio_turn_1000_with_to_without: rows[2]!.input_tokens_with_budget / rows[2]!.input_tokens_without_budget,
    wall_ms: { without_budget: unboundedMs, with_budget: boundedMs },
  };
  const table = [
    '# Input tokens per step over a 1,000-turn session',
    '',
    `Measured ${results.date} on Node ${results.node}, embedded server, an instant model that counts its input`,
    `(one token per three characters of the request's JSON) and reports it as usage. Budget: context.maxInputTokens = ${BUDGET}.`,
    '',
    '| turn | input tokens without budget | input tokens with budget | with / without |',
    '| --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.turn} | ${row.input_tokens_without_budget} | ${row.input_tokens_with_budget} | ${(row.input_tokens_with_budget / row.input_tokens_without_budget).toFixed(2)}× |`,
    ),
    '',
    `Largest request with the budget: ${largest} tokens (${results.bounded_at_every_step ? 'within' : 'OVER'} the budget at every step).`,
    `Compaction cost ${bounded.summaryCalls} extra model calls in ${TURNS} turns: ${results.extra_calls_per_100_turns.toFixed(1)} per 100 turns (target ≤ 5).`,
    `Wall time: ${(boundedMs / 1000).toFixed(1)} s with the budget, ${(unboundedMs / 1000).toFixed(1)} s without (run side by side).`,
    '',
  ].join('\n');
  await writeResults('context-window', results, table);
} finally {
  await bench.stop();
}
