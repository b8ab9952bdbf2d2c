/**
 * Benchmark (not a test): a 1,000-turn chat session with an instant model on the embedded server.
 * Per-turn latency around turns 10, 100 and 1,000 (target: turn 1,000 within 1.2× of turn 10) and
 * history bytes per turn (target: flat), measured in the same run.
 * Writes bench/results/chat-session.json and .md.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { instantModel as instant } from './loop-agent.ts';
import { startBenchWorker } from './embedded-worker.ts';
import { writeResults } from './write-results.ts';

const TURNS = 1_000;
const WINDOW = 5;
const MARKS = [10, 100, 1_000];

Runtime.install({ logger: new DefaultLogger('ERROR') });

const bench = await startBenchWorker({ chat: { llm: instant } });
const { client, memoryStore } = bench;
const session = bench.agents.chatSession('chat', { memoryStore });
const handle = client.workflow.getHandle(session.workflowId);

async function historyBytes(): Promise<{ runId: string; bytes: number }> {
  const description = await handle.describe();
  return {
    runId: description.runId,
    bytes: Number(description.raw.workflowExecutionInfo?.historySizeBytes ?? 0),
  };
}

try {
  const latency: number[] = [];
  const bytesPerTurn = new Map<number, number[]>();
  for (let turn = 1; turn <= TURNS; turn++) {
    const near = MARKS.find((mark) => turn > mark - WINDOW && turn <= mark);
    const before = near ? await historyBytes() : undefined;
    const start = performance.now();
    await session.send(`message ${turn}`);
    latency.push(performance.now() - start);
    if (near && before) {
      const after = await historyBytes();
      if (after.runId === before.runId)
        bytesPerTurn.set(near, [...(bytesPerTurn.get(near) ?? []), after.bytes - before.bytes]);
    }
  }
  let runs = 0;
  for await (const _ of client.workflow.list({ query: `WorkflowId = '${session.workflowId}'` })) runs += 1;
  const median = (values: number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
  const rows = MARKS.map((mark) => ({
    turn: mark,
    latency_ms: median(latency.slice(mark - WINDOW, mark)),
    history_bytes_per_turn: median(bytesPerTurn.get(mark) ?? []),
  }));
  const results = {
    date: new Date().toISOString(),
    node: process.version,
    turns: TURNS,
    runs_after_continue_as_new: runs,
    marks: rows,
    ratio_turn_1000_to_turn_10: rows[2]!.latency_ms / rows[0]!.latency_ms,
    target_ratio: 1.2,
  };
  const table = [
    '# A 1,000-turn chat session',
    '',
    `Measured ${results.date} on Node ${results.node}, embedded server, instant model; medians of the ${WINDOW} turns up to each mark.`,
    `The session continued as new ${runs - 1} time(s).`,
    '',
    '| turn | latency per turn | history bytes per turn |',
    '| --- | --- | --- |',
    ...rows.map((row) => `| ${row.turn} | ${row.latency_ms.toFixed(2)} ms | ${row.history_bytes_per_turn} |`),
    '',
    `Turn 1,000 / turn 10 latency: ${results.ratio_turn_1000_to_turn_10.toFixed(2)}× (target ≤ 1.2×).`,
    '',
  ].join('\n');
  await writeResults('chat-session', results, table);
} finally {
  await bench.stop();
}
