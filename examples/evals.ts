/**
 * Evaluating an agent: a dataset of cases (examples/evals/orders.jsonl) runs through real agent runs,
 * each one scored by the answer, the tool calls it made and an LLM judge; the report prints as a
 * table and is written as JUnit XML for CI. Then one finished run is recorded as a case, ready to
 * replay against a changed agent.
 *
 *   npm run build && node examples/evals.ts
 *
 * The agent's model and the judge are ScriptedModels that follow the prompt (what CI runs); give
 * `llm` and `llmJudge({ model })` any AI SDK model instead. Everything else is real: the embedded
 * Temporal server, the workflows, the tool.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  AgentClient,
  BaseConnectorTool,
  createAgentWorker,
  EmbeddedTemporalServer,
  evaluate,
  llmJudge,
  loadDataset,
  outputIncludes,
  recordCase,
  toJUnit,
  toolTrajectory,
  usageBudget,
  type ModelRequest,
  type ScriptedStep,
  type ToolContext,
  type ToolOutput,
} from 'toolkit-agent';
import { ScriptedModel } from 'toolkit-agent/testing';

const ORDERS: Record<string, string> = { '7': 'Order 7: shipped on Monday.' };

class OrderTool extends BaseConnectorTool {
  readonly name = 'lookup_order';
  readonly description = 'Looks an order up by id';
  readonly parameters = z.object({ id: z.string() });
  async run(_context: ToolContext, args: { id: string }): Promise<ToolOutput> {
    return { text: ORDERS[args.id] ?? `There is no order ${args.id}.`, metadata: {} };
  }
}

/** A model that looks up the order the prompt names, then says what the tool said. */
const agentStep = (request: ModelRequest): ScriptedStep => {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') {
    return { text: last.content, usage: { input_tokens: 40, output_tokens: 10, total_tokens: 50 } };
  }
  const id = /order (\d+)/.exec(request.messages.find((m) => m.role === 'user')?.content ?? '')?.[1];
  return { toolCalls: [{ name: 'lookup_order', args: { id: id ?? '' } }] };
};
/** A judge that passes an answer naming a status or saying there is no such order. */
const judgeStep = (request: ModelRequest): ScriptedStep => {
  const answer = request.messages.at(-1)?.content.split("The agent's answer:\n")[1] ?? '';
  const ok = /shipped|no order/i.test(answer);
  return { object: { score: ok ? 1 : 0, reason: ok ? 'Says where the order is.' : 'Does not say.' } };
};

const temporal = await EmbeddedTemporalServer.start();
const taskQueue = 'evals-example';
const worker = await createAgentWorker({
  temporal: { address: temporal.address },
  taskQueue,
  logLevel: 'WARN',
  agents: {
    orders: {
      // Two steps a run: four runs of the dataset, one to record.
      llm: new ScriptedModel(Array.from({ length: 10 }, () => agentStep)),
      tools: [new OrderTool()],
      systemPrompt: 'You answer questions about orders. Look the order up first.',
    },
  },
});
const serving = worker.run();
const agents = await AgentClient.connect({ address: temporal.address, taskQueue });

try {
  const dataset = await loadDataset(new URL('evals/orders.jsonl', import.meta.url).pathname);
  const report = await evaluate({
    client: agents,
    agent: 'orders',
    dataset,
    scorers: [
      outputIncludes(),
      toolTrajectory([{ tool: 'lookup_order' }], { mode: 'exact' }),
      usageBudget({ total_tokens: 200 }),
      llmJudge({
        model: new ScriptedModel(Array.from({ length: 4 }, () => judgeStep)),
        rubric: 'The answer says where the order is, or that there is no such order.',
      }),
    ],
    repeat: 2,
  });
  for (const evalCase of report.cases) {
    console.log(`${evalCase.name}: ${evalCase.passRate * 100}% passed`);
    for (const score of evalCase.attempts[0]!.scores) console.log(`  ${score.scorer}: ${score.reason}`);
  }
  const junit = join(tmpdir(), 'toolkit-agent-evals.xml');
  await writeFile(junit, toJUnit(report));
  console.log(`${report.passed}/${report.attempts} passed; JUnit XML in ${junit}`);
  if (report.passRate < 1) throw new Error('A case failed.');

  // A finished run becomes a case: its prompt, model steps, tool calls with results and answer.
  const handle = await agents.startRun('orders', 'Where is order 7?');
  await handle.result();
  const recorded = await recordCase(handle, { name: 'order 7, recorded' });
  console.log('Recorded:', JSON.stringify(recorded.recorded.toolCalls));
} finally {
  await agents.close();
  worker.shutdown();
  await serving;
  await temporal.close();
}
