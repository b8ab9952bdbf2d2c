/**
 * The worker the Python client (client.py beside this file) talks to: agent "support" with one
 * custom connector, served on a Temporal server you run (`temporal server start-dev`, or any
 * cluster). See README.md beside this file.
 *
 *   TEMPORAL_ADDRESS=127.0.0.1:7233 node examples/python/worker.ts
 *
 * The model is Anthropic's when ANTHROPIC_API_KEY is set, OpenAI's when OPENAI_API_KEY is set, and
 * otherwise a stand-in that answers from the conversation (so the example runs offline and in CI).
 *
 * @ci-skip test/integration/python-client.test.ts runs it with the Python client
 */
import { NativeConnection } from '@temporalio/worker';
import { z } from 'zod';
import {
  BaseConnectorTool,
  InMemoryCredentialStore,
  InMemoryMemoryStore,
  type LanguageModel,
  type ModelAdapter,
  type ModelRequest,
  type ModelResponse,
  type ToolContext,
  type ToolOutput,
} from 'toolkit-agent';
import { createAgentWorker } from 'toolkit-agent/worker';

/** A connector with nothing to reach: the status of a service, as an internal API would answer. */
class StatusTool extends BaseConnectorTool {
  readonly name = 'service_status';
  readonly description = 'Current status of an internal service';
  readonly parameters = z.object({ service: z.string().describe('service name, e.g. billing') });

  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const status = { service: String(args.service), status: 'up', latency_ms: 42 };
    return { text: JSON.stringify(status), metadata: status };
  }
}

/**
 * A stand-in model: asked about a service, it calls `service_status`; given the tool's answer, it
 * reports it; told a name, it remembers it from the stored conversation.
 */
class DeskModel implements ModelAdapter {
  readonly specificationVersion = 'toolkit-agent.model.v1';
  readonly modelId = 'desk-stand-in';

  async generate({ messages }: ModelRequest): Promise<ModelResponse> {
    const last = messages.at(-1);
    if (last?.role === 'tool') {
      const { service, status } = JSON.parse(last.content) as { service: string; status: string };
      return answer(`The ${service} service is ${status}.`);
    }
    const prompt = last?.role === 'user' ? last.content : '';
    const service = /\b(\w+) service\b/i.exec(prompt)?.[1];
    if (service) {
      return {
        text: '',
        toolCalls: [{ id: `call-${messages.length}`, name: 'service_status', args: { service } }],
      };
    }
    const told = messages
      .filter((message) => message.role === 'user')
      .map((message) => /my name is (\w+)/i.exec(message.content)?.[1])
      .findLast(Boolean);
    if (/my name is/i.test(prompt)) return answer(`Nice to meet you, ${told}.`);
    return answer(told ? `Your name is ${told}.` : 'I do not know your name yet.');
  }
}

function answer(text: string): ModelResponse {
  return { text, toolCalls: [] };
}

async function chooseModel(): Promise<LanguageModel | ModelAdapter> {
  if (process.env.ANTHROPIC_API_KEY)
    return (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5');
  if (process.env.OPENAI_API_KEY) return (await import('@ai-sdk/openai')).openai('gpt-5-mini');
  return new DeskModel();
}

const taskQueue = process.env.TOOLKIT_AGENT_TASK_QUEUE ?? 'agents';
const connection = await NativeConnection.connect({
  address: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
});
const worker = await createAgentWorker({
  connection,
  taskQueue,
  // Conversations in this process's memory; a worker fleet shares a PostgreSQL or SQLite store.
  memoryStore: new InMemoryMemoryStore(),
  agents: {
    support: {
      llm: await chooseModel(),
      tools: [new StatusTool()],
      credentialStore: new InMemoryCredentialStore(),
      systemPrompt: 'You answer questions about internal services. Use service_status to check one.',
    },
  },
});
process.once('SIGINT', () => worker.shutdown());
process.once('SIGTERM', () => worker.shutdown());
console.log(`Worker ready: agent "support" on task queue "${taskQueue}".`);
try {
  await worker.run();
} finally {
  await connection.close();
}
