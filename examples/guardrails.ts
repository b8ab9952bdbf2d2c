/**
 * Guardrails on a support agent: personal data in the prompt is redacted before the model sees it,
 * a prompt-injection classifier checks what a tool fetched, a tool check refuses refunds over a
 * limit (the model is told why), and an output check keeps internal ticket notes out of the answer
 * (tripping the run: `GuardrailTripped`). Each verdict is recorded in the run's history.
 *
 *   npm run build && node examples/guardrails.ts
 *
 * The models: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set (the
 * classifier then uses the same provider), otherwise ScriptedModels (what CI runs). Everything else
 * is real: the embedded Temporal server, the workflow, the activities, the checks.
 */
import { z } from 'zod';
import {
  Agent,
  defineTool,
  GuardrailTripped,
  piiGuardrail,
  promptInjectionGuardrail,
  type LanguageModel,
  type OutputGuardrail,
  type ToolGuardrail,
} from 'toolkit-agent';
import { ScriptedModel } from 'toolkit-agent/testing';

const readTicket = defineTool({
  name: 'read_ticket',
  description: 'Reads a support ticket by id',
  parameters: z.object({ id: z.string() }),
  async run(_context, { id }) {
    return { text: `Ticket ${id}: the customer was charged twice for order 1042 (49.90 EUR).`, metadata: {} };
  },
});

const refund = defineTool({
  name: 'refund',
  description: 'Refunds an amount in EUR for an order',
  parameters: z.object({ order: z.string(), amount: z.number() }),
  async run(_context, { order, amount }) {
    return { text: `Refunded ${amount} EUR for order ${order}.`, metadata: {} };
  },
});

/** Refunds over 100 EUR need a person: the model is told so, and the call does not run. */
const refundLimit: ToolGuardrail = {
  name: 'refund_limit',
  tools: ['refund'],
  check: ({ phase, args }) =>
    phase === 'before' && (args as { amount: number }).amount > 100
      ? { reject: 'Refunds over 100 EUR need a person: tell the customer a colleague will follow up.' }
      : undefined,
};

/** Internal notes never reach the customer. */
const noInternalNotes: OutputGuardrail = {
  name: 'no_internal_notes',
  check: ({ text }) =>
    /INTERNAL:/i.test(text) ? { tripwire: 'the answer quotes internal notes' } : undefined,
};

async function chooseModels(): Promise<{
  llm: LanguageModel | ScriptedModel;
  classifier: LanguageModel | ScriptedModel;
}> {
  if (process.env.ANTHROPIC_API_KEY) {
    const { anthropic } = await import('@ai-sdk/anthropic');
    return { llm: anthropic('claude-sonnet-4-5'), classifier: anthropic('claude-haiku-4-5') };
  }
  if (process.env.OPENAI_API_KEY) {
    const { openai } = await import('@ai-sdk/openai');
    return { llm: openai('gpt-5-mini'), classifier: openai('gpt-5-mini') };
  }
  return {
    llm: new ScriptedModel([
      // First run: read the ticket, refund too much (rejected), then the right amount, then answer.
      { toolCalls: [{ name: 'read_ticket', args: { id: '7' } }] },
      { toolCalls: [{ name: 'refund', args: { order: '1042', amount: 499 } }] },
      { toolCalls: [{ name: 'refund', args: { order: '1042', amount: 49.9 } }] },
      { text: 'We refunded the double charge of 49.90 EUR for order 1042.' },
      // Second run: an answer that quotes internal notes.
      { text: 'INTERNAL: customer flagged as difficult. Your refund is on its way.' },
    ]),
    // The classifier finds nothing wrong in the ticket it reads.
    classifier: new ScriptedModel([{ text: 'OK' }]),
  };
}

const { llm, classifier } = await chooseModels();
const agent = new Agent({
  llm,
  tools: [readTicket, refund],
  systemPrompt: 'You are a support agent. Read the ticket, refund double charges, answer in one sentence.',
  guardrails: {
    input: [piiGuardrail()],
    output: [noInternalNotes],
    tools: [refundLimit, { ...promptInjectionGuardrail({ model: classifier }), tools: ['read_ticket'] }],
  },
});

let failed = false;
try {
  const { output, metadata } = await agent.run(
    'Ticket 7 (customer ada@example.com): please fix the double charge.',
  );
  console.log(`Answer: ${output}\n(${metadata.iterations} steps, tool calls: ${metadata.tool_calls})`);
  if (llm instanceof ScriptedModel) {
    // The model never saw the mail address (piiGuardrail redacted it) and was told why the big refund failed.
    const seen = JSON.stringify(llm.calls[0]!.messages);
    if (seen.includes('ada@example.com') || !seen.includes('[EMAIL]'))
      throw new Error('the prompt was not redacted');
    if (!JSON.stringify(llm.calls[2]!.messages).includes('need a person'))
      throw new Error('the refund was not refused');
    // The scripted second answer quotes internal notes: the output check stops the run.
    await agent.run('How is my refund going?');
    throw new Error('the second run should have been stopped by a guardrail');
  }
} catch (error) {
  if (error instanceof GuardrailTripped) {
    console.log(`Stopped by the ${error.kind} guardrail "${error.check}": ${error.reason}`);
  } else {
    console.error(`\nThe run failed: ${(error as Error).message}`);
    failed = true;
  }
} finally {
  await agent.close();
}
process.exitCode = failed ? 1 : 0;
