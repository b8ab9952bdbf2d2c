/**
 * Approvals from a terminal: the agent may look up orders freely, but a refund waits for a person.
 * The run pauses durably at `approval_requested` (for as long as it takes: a worker restart does
 * not lose it), the terminal asks y/n, and `approve` or `reject` lets the run go on.
 *
 *   npm run build && node examples/terminal-approvals.ts
 *
 * The model: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set, otherwise a
 * ScriptedModel (what CI runs, answering the question with the `y` it types on stdin). Everything
 * else is real: the embedded Temporal server, the workflow, the wait, the activities.
 *
 * @ci-stdin y\n
 */
import { createInterface } from 'node:readline/promises';
import { z } from 'zod';
import {
  Agent,
  BaseConnectorTool,
  type LanguageModel,
  type ToolContext,
  type ToolOutput,
} from 'toolkit-agent';
import { ScriptedModel } from 'toolkit-agent/testing';

const refunds: Array<{ order: string; amount_eur: number }> = [];

class OrderTool extends BaseConnectorTool {
  readonly name = 'read_order';
  readonly description = 'Reads an order by number';
  readonly parameters = z.object({ order: z.string() });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: `Order ${String(args.order)}: 49.00 EUR, charged twice on 3 March.`, metadata: {} };
  }
}

class RefundTool extends BaseConnectorTool {
  readonly name = 'issue_refund';
  readonly description = 'Refunds an amount of an order to the customer';
  readonly parameters = z.object({ order: z.string(), amount_eur: z.number() });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    refunds.push({ order: String(args.order), amount_eur: Number(args.amount_eur) });
    return {
      text: `Refunded ${Number(args.amount_eur).toFixed(2)} EUR on order ${String(args.order)}.`,
      metadata: {},
    };
  }
}

const llm: LanguageModel | ScriptedModel = process.env.ANTHROPIC_API_KEY
  ? (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5')
  : process.env.OPENAI_API_KEY
    ? (await import('@ai-sdk/openai')).openai('gpt-5-mini')
    : new ScriptedModel([
        { toolCalls: [{ name: 'read_order', args: { order: '7' } }] },
        { toolCalls: [{ name: 'issue_refund', args: { order: '7', amount_eur: 49 } }] },
        // The tool's answer, or "declined: <reason>" when the person said no.
        (request) => ({ text: String(request.messages.at(-1)?.content) }),
      ]);

const agent = new Agent({
  llm,
  tools: [new OrderTool(), new RefundTool()],
  systemPrompt: 'You help customers with orders. Refund double charges.',
  maxIterations: 4,
  // Every issue_refund call waits for a decision; after a day without one it is declined.
  approval: { tools: ['issue_refund'], timeoutMs: 86_400_000 },
});
// Lines typed (or piped) on stdin, read as they are needed; the end of input counts as "no".
const terminal = createInterface({ input: process.stdin });
const lines = terminal[Symbol.asyncIterator]();
async function ask(question: string): Promise<boolean> {
  process.stdout.write(`${question} [y/n] `);
  const line = await lines.next();
  if (!process.stdin.isTTY) console.log(line.done ? '(no answer)' : line.value);
  return !line.done && /^y(es)?$/i.test(line.value.trim());
}

let approved = 0;
try {
  const run = await agent.startRun('Order 7 was charged twice. Please fix it.');
  for await (const event of run.events()) {
    if (event.type === 'tool_completed') console.log(`  ${String(event.payload.output)}`);
    if (event.type !== 'approval_requested') continue;
    const { call_id, tool, args } = event.payload as { call_id: string; tool: string; args: unknown };
    const yes = await ask(`Allow ${tool} ${JSON.stringify(args)}?`);
    approved += yes ? 1 : 0;
    if (yes) await run.approve(call_id, { note: 'approved at the terminal' });
    else await run.reject(call_id, 'refused at the terminal');
  }
  const result = await run.result();
  console.log(`\nAnswer: ${String(result.output)}`);
  // A refund goes out only when a person said yes.
  if (refunds.length !== approved) {
    throw new Error(
      `${approved} refunds approved, but ${refunds.length} went out: ${JSON.stringify(refunds)}.`,
    );
  }
} finally {
  terminal.close();
  await agent.close();
}
