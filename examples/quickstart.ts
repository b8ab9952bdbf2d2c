/**
 * Quickstart: an agent with one custom connector, run durably on an embedded Temporal dev server.
 *
 *   npm start
 *
 * The model here is scripted (ScriptedModel from toolkit-agent/testing) so that the example runs
 * offline with no API key; real providers arrive with the model-adapter work. Everything else is
 * real: the Temporal server, the workflow, the activities, the credential lookup and redaction.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  Agent,
  BaseConnectorTool,
  InMemoryCredentialStore,
  type ToolContext,
  type ToolOutput,
} from 'toolkit-agent';
import { ScriptedModel } from 'toolkit-agent/testing';

// A stand-in for an internal status API that wants a bearer token.
const statusApi = createServer((request, response) => {
  const authorized = request.headers.authorization === 'Bearer sk-example-status-token';
  response.writeHead(authorized ? 200 : 401, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify(
      authorized ? { service: 'billing', status: 'up', latency_ms: 42 } : { error: 'unauthorized' },
    ),
  );
});
statusApi.listen(0, '127.0.0.1');
await once(statusApi, 'listening');
const baseUrl = `http://127.0.0.1:${(statusApi.address() as AddressInfo).port}`;

/** A custom connector: reads its credential from the shared store inside the activity. */
class StatusTool extends BaseConnectorTool {
  readonly name = 'service_status';
  readonly description = 'Current status of an internal service';
  readonly parameters = z.object({ service: z.string().describe('service name, e.g. billing') });
  protected override readonly defaultCredentialKey = 'status_api';

  async run(context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const { token, metadata } = await this.getCredential(context);
    const response = await fetch(`${String(metadata?.base_url)}/status/${String(args.service)}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: context.signal,
    });
    const body = (await response.json()) as Record<string, unknown>;
    return { text: JSON.stringify(body), metadata: body };
  }
}

const credentialStore = new InMemoryCredentialStore();
await credentialStore.put({
  name: 'status_api',
  type: 'bearer',
  token: 'sk-example-status-token',
  metadata: { base_url: baseUrl },
});

const agent = new Agent({
  llm: new ScriptedModel([
    { toolCalls: [{ name: 'service_status', args: { service: 'billing' } }] },
    { text: 'The billing service is up (42 ms).' },
  ]),
  tools: [new StatusTool()],
  credentialStore,
});

try {
  console.log('Starting an embedded Temporal server and a worker ...');
  for await (const event of agent.stream('Is the billing service up?')) {
    console.log(`#${event.seq} ${event.type.padEnd(15)} ${event.message}`);
    if (event.type === 'run_completed') console.log(`\nAnswer: ${String(event.payload.output)}\n`);
  }
  const { client } = agent.temporal;
  const runs = client.workflow.list({ query: `TaskQueue = '${agent.temporal.taskQueue}'` });
  for await (const run of runs) console.log(`workflow ${run.workflowId}: ${run.status.name}`);
} finally {
  await agent.close();
  statusApi.close();
}
