/**
 * A Slack mention answered in its thread by a chat session: Slack's Events API posts `app_mention`
 * to a webhook trigger, which verifies Slack's signature (the signing secret from the credential
 * store) and hands the message to the chat session of that thread, once per event however often
 * Slack delivers it. The session's agent answers in the thread with the `chat` tool.
 *
 *   npm run build && node examples/slack-mention.ts
 *
 * Slack here is a stand-in on 127.0.0.1 (chat.postMessage), and the delivery is signed as Slack
 * signs it; point a real Slack app's Event Subscriptions at `POST /slack` to use the real one. The
 * model: Anthropic when ANTHROPIC_API_KEY is set, else a ScriptedModel (what CI runs). The Temporal
 * server (embedded), the worker, the workflows and the activities are real.
 */
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AgentClient,
  ChatTool,
  createAgentWorker,
  createTriggerHandler,
  EmbeddedTemporalServer,
  InMemoryCredentialStore,
  toNodeListener,
  type LanguageModel,
  type TriggerEvent,
} from 'toolkit-agent';
import { ScriptedModel } from 'toolkit-agent/testing';

const SIGNING_SECRET = 'example-signing-secret';
const THREAD = { channel: 'C0DEPLOY', ts: '1767225600.000100' };

// 1. A Slack stand-in that records what the agent posts.
const posted: Array<{ channel: string; thread_ts?: string; text: string }> = [];
const slack = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString()));
  request.on('end', () => {
    if (request.url === '/api/chat.postMessage') posted.push(JSON.parse(body) as (typeof posted)[number]);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ok: true, channel: THREAD.channel, ts: '1767225601.000200' }));
  });
}).listen(0, '127.0.0.1');
await once(slack, 'listening');

// 2. The signing secret and the bot token live in the credential store, never in code.
const credentialStore = new InMemoryCredentialStore();
await credentialStore.put({ name: 'slack_signing', type: 'api_key', token: SIGNING_SECRET });
await credentialStore.put({
  name: 'chat',
  type: 'bearer',
  token: 'xoxb-example',
  metadata: { base_url: `http://127.0.0.1:${(slack.address() as AddressInfo).port}` },
});

// 3. The agent, on a worker of the embedded Temporal server.
const llm: LanguageModel | ScriptedModel = process.env.ANTHROPIC_API_KEY
  ? (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5')
  : new ScriptedModel([
      {
        toolCalls: [
          {
            name: 'chat',
            args: {
              action: 'post',
              channel: THREAD.channel,
              thread_ts: THREAD.ts,
              text: 'Yes: the deploy went out at 09:12.',
            },
          },
        ],
      },
      { text: 'Answered in the thread.' },
    ]);
const server = await EmbeddedTemporalServer.start();
const taskQueue = 'slack-example';
const worker = await createAgentWorker({
  temporal: { address: server.address },
  taskQueue,
  agents: {
    assistant: {
      llm,
      tools: [new ChatTool()],
      credentialStore,
      systemPrompt: 'You answer Slack mentions. Reply in the thread the message names, with the chat tool.',
    },
  },
});
const running = worker.run();
const agents = await AgentClient.connect({ address: server.address, taskQueue });

// 4. The trigger: each mention goes into the chat session of its thread.
const thread = (event: TriggerEvent) => {
  const { channel, ts, thread_ts, text } = (event.body as { event: Record<string, string> }).event as {
    channel: string;
    ts: string;
    thread_ts?: string;
    text: string;
  };
  return { channel, thread: thread_ts ?? ts, text };
};
const webhook = createServer(
  toNodeListener(
    createTriggerHandler({
      client: agents,
      credentialStore,
      triggers: [
        {
          name: 'slack',
          source: 'slack',
          secretKey: 'slack_signing',
          session: {
            agent: 'assistant',
            id: (event) => `slack-${thread(event).channel}-${thread(event).thread}`,
            prompt: (event) =>
              `In channel ${thread(event).channel}, thread ${thread(event).thread}: ${thread(event).text}`,
          },
        },
      ],
    }),
  ),
).listen(0, '127.0.0.1');
await once(webhook, 'listening');

// 5. Slack delivers the mention, then delivers it again (a retry): one turn answers it.
const body = JSON.stringify({
  type: 'event_callback',
  event_id: 'Ev0EXAMPLE01',
  event: {
    type: 'app_mention',
    user: 'U0ADA',
    text: '<@U0BOT> did the deploy go out?',
    channel: THREAD.channel,
    ts: THREAD.ts,
  },
});
for (const retry of [0, 1]) {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', SIGNING_SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  const response = await fetch(`http://127.0.0.1:${(webhook.address() as AddressInfo).port}/slack`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
      ...(retry ? { 'x-slack-retry-num': String(retry), 'x-slack-retry-reason': 'http_timeout' } : {}),
    },
    body,
  });
  console.log(`delivery ${retry + 1}: ${response.status} ${await response.text()}`);
}

// 6. The answer arrives in the thread, once.
for (let waited = 0; posted.length === 0 && waited < 30_000; waited += 100)
  await new Promise((r) => setTimeout(r, 100));
await new Promise((r) => setTimeout(r, 500));
console.log('posted to Slack:', posted);
if (posted.length !== 1 || posted[0]!.thread_ts !== THREAD.ts) {
  console.error('Expected exactly one reply in the thread.');
  process.exitCode = 1;
}

webhook.close();
slack.close();
await agents.close();
worker.shutdown();
await running;
await server.close();
