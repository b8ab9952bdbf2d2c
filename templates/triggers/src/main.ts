/**
 * `npm start`: an agent that reacts to the outside world. Webhooks signed the Standard Webhooks way
 * (`POST /events`) each start one run, once per delivery id however often it is redelivered; a
 * Temporal Schedule starts a run every weekday at 09:00. Send a signed test event with
 * `npm run send-event`. Slack, GitHub and Linear are built-in sources too (`source: 'slack'`, ...).
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import {
  AgentClient,
  BaseConnectorTool,
  createAgentWorker,
  createTriggerHandler,
  EmbeddedTemporalServer,
  InMemoryCredentialStore,
  toNodeListener,
  type ToolContext,
  type ToolOutput,
} from 'toolkit-agent';
import { chooseModel } from './model.ts';

/** Stands in for a team chat: replace with `ChatTool` (Slack) or your own API. */
class NotifyTool extends BaseConnectorTool {
  readonly name = 'notify';
  readonly description = 'Tells the team something, in one short message';
  readonly parameters = z.object({ text: z.string() });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    console.log(`[notify] ${String(args.text)}`);
    return { text: 'Sent.', metadata: {} };
  }
}

const server = process.env.TEMPORAL_ADDRESS ? undefined : await EmbeddedTemporalServer.start();
const address = process.env.TEMPORAL_ADDRESS ?? server!.address;
const taskQueue = 'triggers';

const worker = await createAgentWorker({
  temporal: { address },
  taskQueue,
  logLevel: 'WARN',
  agents: {
    assistant: {
      llm: await chooseModel(),
      tools: [new NotifyTool()],
      systemPrompt: 'You watch events for the team. Tell the team what matters with notify, briefly.',
    },
  },
});
const serving = worker.run();
const agents = await AgentClient.connect({ address, taskQueue });

// The signing secret lives in a credential store, never in code. In production a
// FileCredentialStore or PostgresCredentialStore (`npx toolkit-agent creds set webhook_secret`).
const credentialStore = new InMemoryCredentialStore();
await credentialStore.put({
  name: 'webhook_secret',
  type: 'api_key',
  token: process.env.WEBHOOK_SECRET ?? 'whsec_ZGV2ZWxvcG1lbnQtc2VjcmV0LWNoYW5nZS1tZQ==',
});
const webhooks = createServer(
  toNodeListener(
    createTriggerHandler({
      client: agents,
      credentialStore,
      log: (line) => console.log(line),
      triggers: [
        {
          name: 'events',
          source: 'standard-webhooks',
          secretKey: 'webhook_secret',
          run: {
            agent: 'assistant',
            prompt: (event) => `Tell the team about this event in one sentence: ${inWords(event.body)}.`,
          },
        },
      ],
    }),
  ),
);
webhooks.listen(Number(process.env.PORT ?? 8787), '127.0.0.1');
await once(webhooks, 'listening');

// A schedule lives in Temporal: created once, it fires whether or not this process runs.
if (!(await agents.schedules.list()).some((schedule) => schedule.id === 'weekday-digest')) {
  await agents.schedules.create('weekday-digest', {
    agent: 'assistant',
    prompt: 'Post the weekday digest: say good morning to the team.',
    cron: '0 9 * * MON-FRI',
    timezone: 'UTC',
  });
}
console.log(
  `Webhooks at http://127.0.0.1:${(webhooks.address() as AddressInfo).port}/events; schedule weekday-digest.`,
);
console.log('Ctrl-C stops.');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      webhooks.close();
      await agents.close();
      // Ctrl-C already stops the worker (Temporal's runtime handles the signal).
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await serving;
      await server?.close();
    })();
  });
}

/** An event's fields in words ("type deploy.finished, service billing"): small models read them better than JSON. */
function inWords(body: unknown): string {
  if (!body || typeof body !== 'object') return String(body);
  return Object.entries(body)
    .map(([key, value]) => `${key} ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join(', ');
}
