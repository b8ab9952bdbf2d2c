/**
 * A backend service that starts agent runs and awaits typed results, the way production splits it:
 * a worker serves the agent (`createAgentWorker`), and the HTTP service only holds an `AgentClient`.
 * `POST /tickets/:id/triage` starts a durable run and answers 202 with its id at once;
 * `GET /runs/:id` awaits the run (from any process, after any restart) and answers with the typed
 * `{ priority, team, summary }`, checked against a zod schema on the worker.
 *
 *   npm run build && node examples/structured-output.ts
 *
 * The model: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set, otherwise a
 * ScriptedModel (what CI runs): it reads the ticket with the tool, then answers with the object.
 * Everything else is real: the embedded Temporal server (in production, your cluster: give
 * `AgentClient.connect` and `createAgentWorker` its address), the workflow, the activities, the check.
 */
import { createServer, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  AgentClient,
  BaseConnectorTool,
  createAgentWorker,
  EmbeddedTemporalServer,
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

// The worker: serves the agent `triage`, which answers every run with a Triage.
const temporal = await EmbeddedTemporalServer.start();
const taskQueue = 'backend-example';
const worker = await createAgentWorker({
  temporal: { address: temporal.address },
  taskQueue,
  logLevel: 'WARN',
  agents: {
    triage: {
      llm: await chooseModel(),
      tools: [new TicketTool()],
      systemPrompt: 'You triage support tickets. Read the ticket first.',
      output: Triage,
    },
  },
});
const serving = worker.run();

// The backend service: it only needs a client (and the task queue the workers serve).
const agents = await AgentClient.connect({ address: temporal.address, taskQueue });
const json = (response: ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const service = createServer((request, response) => {
  const ticket = /^\/tickets\/(\w+)\/triage$/.exec(request.url ?? '')?.[1];
  const run = /^\/runs\/([\w-]+)$/.exec(request.url ?? '')?.[1];
  if (request.method === 'POST' && ticket) {
    // Starts the run and returns at once; `output` makes the handle's result a Triage.
    agents.startRun('triage', `Triage ticket ${ticket}.`, { output: Triage }).then(
      (handle) => json(response, 202, { run: handle.workflowId }),
      (error: Error) => json(response, 500, { error: error.message }),
    );
  } else if (request.method === 'GET' && run) {
    // Any process can await a run by its id; `result.output` is typed as the schema says.
    agents
      .getHandle<Triage>(run)
      .result()
      .then(
        (result) => json(response, 200, { ...result.output, stop_reason: result.metadata.stop_reason }),
        // The answer never matched the schema (after outputRepairs tries), or the run failed.
        (error: Error) =>
          json(response, error instanceof OutputValidationError ? 502 : 500, { error: error.message }),
      );
  } else {
    response.writeHead(404).end();
  }
});
service.listen(0, '127.0.0.1');
await once(service, 'listening');
const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;

try {
  const started = await fetch(`${url}/tickets/7/triage`, { method: 'POST' });
  const { run } = (await started.json()) as { run: string };
  console.log(`POST /tickets/7/triage → HTTP ${started.status}, run ${run}`);
  const response = await fetch(`${url}/runs/${run}`);
  const body = (await response.json()) as Triage;
  console.log(`GET /runs/${run} → HTTP ${response.status}`, body);
  const parsed = Triage.safeParse(body);
  if (response.status !== 200 || !parsed.success) {
    throw new Error(`The service did not answer with a Triage: ${JSON.stringify(body)}`);
  }
} finally {
  service.close();
  await agents.close();
  worker.shutdown();
  await serving;
  await temporal.close();
}
