/**
 * Agents that delegate: a triage agent hands the two halves of a customer's message to two
 * specialists at once. Each specialist runs as a child workflow with a conversation of its own; the
 * billing specialist answers with a typed object. Then a chat session is handed to billing.
 *
 *   npm run build && node examples/sub-agents.ts
 *
 * The model: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set, otherwise
 * ScriptedModels (what CI runs). Everything else is real: the embedded Temporal server, the parent
 * and child workflows, the activities.
 */
import { z } from 'zod';
import {
  Agent,
  BaseConnectorTool,
  type AgentEvent,
  type LanguageModel,
  type ToolContext,
  type ToolOutput,
} from 'toolkit-agent';
import { ScriptedModel, type ScriptedStep } from 'toolkit-agent/testing';

const Refund = z.object({ refund: z.boolean(), amount_eur: z.number(), reason: z.string() });

const INVOICES: Record<string, string> = { '7': 'Invoice 7: 49.00 EUR, charged twice on 3 March.' };

class InvoiceTool extends BaseConnectorTool {
  readonly name = 'read_invoice';
  readonly description = 'Reads an invoice by number';
  readonly parameters = z.object({ id: z.string() });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: INVOICES[String(args.id)] ?? 'No such invoice.', metadata: {} };
  }
}

const real = process.env.ANTHROPIC_API_KEY
  ? (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5')
  : process.env.OPENAI_API_KEY
    ? (await import('@ai-sdk/openai')).openai('gpt-5-mini')
    : undefined;
/** The real model, or a script of steps for CI. */
const model = (...steps: ScriptedStep[]): LanguageModel | ScriptedModel => real ?? new ScriptedModel(steps);
const usage = (n: number) => ({ input_tokens: n, output_tokens: n, total_tokens: 2 * n });

const triage = new Agent({
  llm: model(
    {
      text: 'Two questions: I ask billing and search at once.',
      toolCalls: [
        { name: 'agent_billing', args: { task: 'Invoice 7 was charged twice. Refund?' } },
        { name: 'agent_search', args: { task: 'Why does search miss invoice 7?' } },
      ],
      usage: usage(40),
    },
    {
      text: 'Billing refunds the 49.00 EUR charged twice; search will find invoice 7 after tonight’s reindex.',
      usage: usage(60),
    },
  ),
  systemPrompt: 'You triage customer messages: delegate each question to the right specialist, then answer.',
  subAgents: {
    billing: {
      description: 'Answers billing questions (invoices, refunds) with a refund decision',
      definition: {
        llm: model(
          { toolCalls: [{ name: 'read_invoice', args: { id: '7' } }], usage: usage(20) },
          { object: { refund: true, amount_eur: 49, reason: 'charged twice' }, usage: usage(25) },
        ),
        tools: [new InvoiceTool()],
        systemPrompt: 'You are the billing specialist. Read the invoice first.',
        output: Refund,
      },
    },
    search: {
      description: 'Answers questions about search',
      definition: {
        llm: model({ text: 'The index is rebuilt nightly; invoice 7 is found tomorrow.', usage: usage(15) }),
        systemPrompt: 'You are the search specialist.',
      },
    },
  },
});

try {
  // One stream: the specialists' events come tagged with the agent and the child run they belong to.
  const handle = await triage.startRun('Invoice 7 was charged twice, and search cannot find it.');
  const events: AgentEvent[] = [];
  for await (const event of handle.events()) {
    events.push(event);
    const who = event.payload.sub_run ? `  ${String(event.payload.agent).split('.').pop()}` : 'triage';
    console.log(`${who.padEnd(8)} ${event.type.padEnd(16)} ${event.message}`);
  }
  const result = await handle.result();
  console.log('\nAnswer:', result.output);
  for (const run of result.metadata.sub_runs ?? [])
    console.log(`  ${run.name}: ${run.stop_reason}, ${run.usage.total_tokens} tokens (${run.workflow_id})`);
  console.log(`Tokens, the specialists' included: ${result.metadata.usage.total_tokens}`);

  if (!real) {
    // What CI checks: two children, their usage in the parent's, billing's typed answer as the call's result.
    const children = result.metadata.sub_runs ?? [];
    const billingResult = events.find(
      (e) => e.type === 'tool_completed' && e.payload.tool === 'agent_billing' && !e.payload.sub_run,
    );
    const refund = Refund.parse(JSON.parse(String(billingResult?.payload.output)));
    const tagged = events.filter((e) => e.payload.sub_run !== undefined && e.payload.depth === 1);
    if (
      children.length !== 2 ||
      children.some((c) => c.stop_reason !== 'completed') ||
      result.metadata.usage.total_tokens !== 200 + 90 + 30 ||
      !refund.refund ||
      tagged.length === 0
    ) {
      throw new Error(`Unexpected result: ${JSON.stringify(result.metadata)}`);
    }
  }
} finally {
  await triage.close();
}

// A handoff: the front desk hands the chat to billing, which answers this turn and the next.
const desk = new Agent({
  llm: model({
    text: 'Billing will take it from here.',
    toolCalls: [{ name: 'transfer_to_billing', args: {} }],
  }),
  systemPrompt: 'You are the front desk. Hand billing questions to billing.',
  subAgents: {
    billing: {
      definition: {
        llm: model(
          { text: 'Billing here: the refund of 49.00 EUR is on its way.' },
          { text: 'Within 3 days.' },
        ),
        systemPrompt: 'You are billing.',
      },
    },
  },
  handoffs: ['billing'],
});
try {
  const chat = desk.chatSession();
  const first = await chat.send('I was charged twice for invoice 7.');
  const second = await chat.send('When will I see the money?');
  console.log(`\nTurn 1 (${first.metadata.agent}): ${first.output}`);
  console.log(`Turn 2 (${second.metadata.agent ?? 'billing'}): ${second.output}`);
  if (!real && (first.metadata.agent?.endsWith('.billing') !== true || second.output !== 'Within 3 days.'))
    throw new Error(`The chat was not handed to billing: ${JSON.stringify([first, second])}`);
} finally {
  await desk.close();
}
