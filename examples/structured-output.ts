/**
 * Typed results for a backend service: an HTTP handler starts a durable run that triages a support
 * ticket and awaits `{ priority, team, summary }`, checked against a zod schema on the worker.
 *
 *   npm run build && node examples/structured-output.ts
 *
 * The model: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set, otherwise a
 * ScriptedModel (what CI runs): it reads the ticket with the tool, then answers with the object.
 * Everything else is real: the embedded Temporal server, the workflow, the activities, the check.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  Agent,
  BaseConnectorTool,
  OutputValidationError,
  type LanguageModel,
  type ToolContext,
  type ToolOutput,
} from 'toolkit-agent';
import { ScriptedModel } from 'toolkit-agent/testing';

const Triage = z.object({
  priority: z.enum(['low', 'medium', 'high']).describe('How urgent the ticket is'),
  team: z.enum(['billing', 'search', 'accounts']).describe('The team that should handle it'),
  summary: z.string().describe('One sentence for the team'),
});
type Triage = z.infer<typeof Triage>;

const TICKETS: Record<string, string> = {
  '7': 'Since 09:00 every invoice export fails with a 500. Month-end closing is today.',
};

class TicketTool extends BaseConnectorTool {
  readonly name = 'read_ticket';
  readonly description = 'Reads a support ticket by id';
  readonly parameters = z.object({ id: z.string() });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: TICKETS[String(args.id)] ?? 'No such ticket.', metadata: {} };
  }
}

async function chooseModel(): Promise<LanguageModel | ScriptedModel> {
  if (process.env.ANTHROPIC_API_KEY)
    return (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5');
  if (process.env.OPENAI_API_KEY) return (await import('@ai-sdk/openai')).openai('gpt-5-mini');
  return new ScriptedModel([
    { toolCalls: [{ name: 'read_ticket', args: { id: '7' } }] },
    {
      object: {
        priority: 'high',
        team: 'billing',
        summary: 'Invoice exports fail with a 500 since 09:00, on month-end closing day.',
      },
    },
  ]);
}

// The agent answers every run with a Triage: `result.output` is typed from the schema.
const agent = new Agent({
  llm: await chooseModel(),
  tools: [new TicketTool()],
  systemPrompt: 'You triage support tickets. Read the ticket first.',
  output: Triage,
});

// The backend service: POST /tickets/:id/triage answers with the typed object as JSON.
const service = createServer((request, response) => {
  const id = /^\/tickets\/(\w+)\/triage$/.exec(request.url ?? '')?.[1];
  if (request.method !== 'POST' || !id) {
    response.writeHead(404).end();
    return;
  }
  agent
    .run(`Triage ticket ${id}.`)
    .then((result) => {
      const triage: Triage = result.output;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ...triage, run: result.metadata.workflow_id }));
    })
    .catch((error: unknown) => {
      // The answer never matched the schema (after outputRepairs tries), or the run failed.
      const status = error instanceof OutputValidationError ? 502 : 500;
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: (error as Error).message }));
    });
});
service.listen(0, '127.0.0.1');
await once(service, 'listening');
const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;

try {
  const response = await fetch(`${url}/tickets/7/triage`, { method: 'POST' });
  const body = (await response.json()) as Triage & { run: string };
  console.log(`HTTP ${response.status}`, body);
  const parsed = Triage.safeParse(body);
  if (response.status !== 200 || !parsed.success) {
    throw new Error(`The service did not answer with a Triage: ${JSON.stringify(body)}`);
  }
} finally {
  service.close();
  await agent.close();
}
