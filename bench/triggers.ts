/**
 * Benchmark (not a test): deliveries per second the webhook handler accepts on one process (each
 * verified and starting a workflow) against plain `client.workflow.start` calls of the same workflow,
 * in the same run on one embedded server, each with 8 requests in flight. No worker runs: what is
 * measured is accepting the event (verify, derive the id, start), not the run. Rounds are taken in
 * turns (plain, handler) so that noise hits both alike. Writes bench/results/triggers.json and .md.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { AgentClient } from '../src/client/agent-client.ts';
import { InMemoryCredentialStore } from '../src/credentials/in-memory.ts';
import { EmbeddedTemporalServer } from '../src/embedded/dev-server.ts';
import { createTriggerHandler } from '../src/triggers/handler.ts';
import { writeResults } from './write-results.ts';

const PER_ROUND = 200;
const ROUNDS = 3;
const IN_FLIGHT = 8;
const SECRET = 'bench-signing-secret';

const server = await EmbeddedTemporalServer.start();
const connection = await Connection.connect({ address: server.address });
const client = new Client({ connection });
const taskQueue = `bench-triggers-${randomUUID()}`;
const agents = new AgentClient({ client, taskQueue });
const store = new InMemoryCredentialStore();
await store.put({ name: 'slack_signing', type: 'api_key', token: SECRET });
const handler = createTriggerHandler({
  client: agents,
  credentialStore: store,
  triggers: [
    {
      name: 'slack',
      source: 'slack',
      secretKey: 'slack_signing',
      run: { agent: 'bench', prompt: () => 'hi' },
    },
  ],
});

/** Runs `count` jobs with `IN_FLIGHT` at a time; answers the elapsed milliseconds. */
async function timed(count: number, job: (i: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await job(next++);
    }),
  );
  return performance.now() - started;
}

function delivery(eventId: string): Request {
  const body = JSON.stringify({
    type: 'event_callback',
    event_id: eventId,
    event: { type: 'app_mention', text: 'hi' },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', SECRET).update(`v0:${timestamp}:${body}`).digest('hex')}`;
  return new Request('http://bench/slack', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
    },
    body,
  });
}

const plain: number[] = [];
const handled: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const tag = randomUUID().slice(0, 8);
  plain.push(
    await timed(PER_ROUND, async (i) => {
      await client.workflow.start('agentRun', {
        taskQueue,
        workflowId: `plain-${tag}-${i}`,
        args: [{ agent: 'bench', prompt: 'hi' }],
      });
    }),
  );
  handled.push(
    await timed(PER_ROUND, async (i) => {
      const response = await handler(delivery(`Ev${tag}${i}`));
      if (response.status !== 200)
        throw new Error(`delivery ${i}: ${response.status} ${await response.text()}`);
    }),
  );
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const plainRate = (PER_ROUND / median(plain)) * 1000;
const handlerRate = (PER_ROUND / median(handled)) * 1000;
const results = {
  per_round: PER_ROUND,
  rounds: ROUNDS,
  in_flight: IN_FLIGHT,
  plain_starts_per_second: Math.round(plainRate),
  handler_deliveries_per_second: Math.round(handlerRate),
  ratio: Math.round((handlerRate / plainRate) * 100) / 100,
};
await writeResults(
  'triggers',
  results,
  [
    '# Webhook deliveries accepted per second',
    '',
    `${PER_ROUND} starts per round, ${ROUNDS} rounds in turns, ${IN_FLIGHT} in flight, one embedded server, no worker (medians).`,
    '',
    '| what | per second |',
    '| --- | --- |',
    `| plain \`client.workflow.start\` | ${results.plain_starts_per_second} |`,
    `| signed Slack deliveries through the handler (verify, id, start) | ${results.handler_deliveries_per_second} |`,
    `| handler / plain | ${results.ratio}× |`,
    '',
  ].join('\n'),
);
await connection.close();
await server.close();
