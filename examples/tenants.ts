/**
 * Many tenants on one fleet: every run records its usage in a ledger (tokens, tool calls, runs, wall
 * time, per tenant), `AgentClient.usage` adds it up per tenant with cost from a pricing table, and
 * quotas refuse what a tenant may not start: here the `trial` tenant may start one run a minute, so
 * its second run is refused with a `QuotaExceededError` naming the quota and when it resets.
 *
 *   npm run build && node examples/tenants.ts
 *
 * The model: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set, otherwise a
 * ScriptedModel (what CI runs) that reports its token counts. Everything else is real: the embedded
 * Temporal server, the worker, the workflows, the ledger. In production, give the workers and the
 * client one `PostgresUsageStore`, so the quotas hold across every worker.
 */
import { z } from 'zod';
import {
  AgentClient,
  BaseConnectorTool,
  createAgentWorker,
  EmbeddedTemporalServer,
  InMemoryMemoryStore,
  InMemoryUsageStore,
  QuotaExceededError,
  type LanguageModel,
  type Pricing,
  type ToolContext,
  type ToolOutput,
} from 'toolkit-agent';
import { ScriptedModel, type ScriptedStep } from 'toolkit-agent/testing';

class OrderTool extends BaseConnectorTool {
  readonly name = 'order_status';
  readonly description = 'The status of an order by number';
  readonly parameters = z.object({ order: z.string() });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: `Order ${String(args.order)}: shipped yesterday, arrives tomorrow.`, metadata: {} };
  }
}

// Four runs that get through (each: look the order up, then answer), with the tokens a model would report.
function chooseModel(): Promise<LanguageModel> | ScriptedModel {
  if (process.env.ANTHROPIC_API_KEY)
    return import('@ai-sdk/anthropic').then((m) => m.anthropic('claude-sonnet-4-5'));
  if (process.env.OPENAI_API_KEY) return import('@ai-sdk/openai').then((m) => m.openai('gpt-5-mini'));
  const run = (order: string, input: number): ScriptedStep[] => [
    {
      toolCalls: [{ name: 'order_status', args: { order } }],
      usage: { input_tokens: input, output_tokens: 20, total_tokens: input + 20 },
    },
    {
      text: `Order ${order} shipped yesterday and arrives tomorrow.`,
      usage: { input_tokens: input + 60, output_tokens: 15, total_tokens: input + 75 },
    },
  ];
  return new ScriptedModel([
    ...run('1001', 300),
    ...run('1002', 320),
    ...run('2001', 280),
    ...run('3001', 310),
  ]);
}

// Dollars per million tokens, by model (the scripted one priced like a mid-size model).
const pricing: Pricing = {
  scripted: { input: 3, output: 15 },
  'claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3 },
  'gpt-5-mini': { input: 0.25, output: 2 },
};

const temporal = await EmbeddedTemporalServer.start();
const taskQueue = 'tenants-example';
// One ledger for the worker and the client (in one process here; a PostgresUsageStore across machines).
const usageStore = new InMemoryUsageStore();
const worker = await createAgentWorker({
  temporal: { address: temporal.address },
  taskQueue,
  logLevel: 'WARN',
  memoryStore: new InMemoryMemoryStore(),
  usageStore,
  // For the whole fleet: every tenant gets 200,000 tokens a day; `trial` may start one run a minute.
  quotas: { perTenant: { maxTokensPerDay: 200_000 }, tenants: { trial: { maxRunsPerMinute: 1 } } },
  agents: {
    support: {
      llm: await chooseModel(),
      tools: [new OrderTool()],
      systemPrompt: 'You answer questions about orders. Look the order up first; answer in one sentence.',
    },
  },
});
const serving = worker.run();
const agents = await AgentClient.connect({ address: temporal.address, taskQueue, usageStore });

try {
  for (const [tenant, order] of [
    ['acme', '1001'],
    ['acme', '1002'],
    ['globex', '2001'],
    ['trial', '3001'],
  ] as const) {
    const result = await agents.run('support', `Where is order ${order}?`, { tenant });
    console.log(`${tenant}: ${result.output} (${result.metadata.usage.total_tokens} tokens)`);
  }

  // The trial tenant's second run this minute: refused before anything runs.
  try {
    await agents.run('support', 'Where is order 3002?', { tenant: 'trial' });
    throw new Error('The trial tenant should have been refused by its quota.');
  } catch (error) {
    if (!(error instanceof QuotaExceededError)) throw error;
    console.log(`trial refused: ${error.code} ${error.quota}, resets at ${error.resetsAt?.toISOString()}`);
  }

  const report = await agents.usage({ since: '1h', groupBy: 'tenant', pricing });
  for (const group of report.groups ?? []) {
    console.log(
      `${group.key.padEnd(7)} runs ${group.runs}  tokens ${group.input_tokens} in / ${group.output_tokens} out  ` +
        `tool calls ${group.tool_calls}  cost $${(group.cost ?? 0).toFixed(5)}`,
    );
  }
  console.log(`total   runs ${report.totals.runs}  cost $${(report.totals.cost ?? 0).toFixed(5)}`);
  if (report.totals.runs !== 4)
    throw new Error(`Expected 4 runs in the ledger, found ${report.totals.runs}.`);
} finally {
  await agents.close();
  worker.shutdown();
  await serving;
  await temporal.close();
}
