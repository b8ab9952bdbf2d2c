import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ChatTool } from '../../src/tools/slack/chat.ts';
import { createTriggerHandler } from '../../src/triggers/handler.ts';
import { toNodeListener } from '../../src/triggers/node-listener.ts';
import type { Trigger, TriggerEvent, VerifiedDelivery } from '../../src/triggers/types.ts';
import { startRecordingServer, type RecordingServer } from '../support/http-server.ts';
import { SlackThreadModel } from '../support/slack-thread-model.ts';
import { linearDelivery, slackDelivery, slackMention } from '../support/webhook-signing.ts';
import { historyText, startTestWorker, type TestWorker } from './helpers.ts';

const SLACK_SECRET = `slack-signing-${randomUUID()}`;
const LINEAR_SECRET = `linear-signing-${randomUUID()}`;
const STANDARD_SECRET = `whsec_${Buffer.from(randomUUID()).toString('base64')}`;

/** Where a Slack mention is answered: its thread (or the message itself when it starts one). */
const slackThread = (event: TriggerEvent) => {
  const body = event.body as { event: { channel: string; ts: string; thread_ts?: string; text: string } };
  return {
    channel: body.event.channel,
    thread: body.event.thread_ts ?? body.event.ts,
    text: body.event.text,
  };
};

describe('webhook triggers and schedules', () => {
  let env: TestWorker;
  let slack: RecordingServer;
  let server: Server;
  let url: string;
  const logged: string[] = [];
  const store = new InMemoryCredentialStore();

  beforeAll(async () => {
    slack = await startRecordingServer((request, response) => {
      const body = JSON.parse(request.body || '{}') as { channel?: string };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ok: true, channel: body.channel, ts: `${Date.now() / 1000}` }));
    });
    await store.put({ name: 'slack_signing', type: 'api_key', token: SLACK_SECRET });
    await store.put({ name: 'linear_signing', type: 'api_key', token: LINEAR_SECRET });
    await store.put({ name: 'standard_signing', type: 'api_key', token: STANDARD_SECRET });
    await store.put({ name: 'chat', type: 'bearer', token: 'xoxb-test', metadata: { base_url: slack.url } });
    env = await startTestWorker({
      slackbot: { llm: new SlackThreadModel(), tools: [new ChatTool()], credentialStore: store },
      responder: { llm: new SlackThreadModel() },
    });
    const triggers: Trigger[] = [
      {
        name: 'slack',
        source: 'slack',
        secretKey: 'slack_signing',
        run: {
          agent: 'slackbot',
          prompt: (event) => {
            const { channel, thread, text } = slackThread(event);
            return `Answer in channel ${channel} thread ${thread}: ${text}`;
          },
        },
      },
      {
        name: 'burst',
        source: 'slack',
        secretKey: 'slack_signing',
        run: { agent: 'responder', prompt: (e) => e.eventId },
      },
      {
        name: 'slack-thread',
        source: 'slack',
        secretKey: 'slack_signing',
        session: {
          agent: 'responder',
          id: (event) => `slack-${slackThread(event).channel}-${slackThread(event).thread}`,
        },
      },
      {
        name: 'linear',
        source: 'linear',
        secretKey: 'linear_signing',
        run: { agent: 'responder', prompt: (e) => `Triage ${e.eventId}` },
      },
      {
        name: 'standard',
        source: 'standard-webhooks',
        secretKey: 'standard_signing',
        run: { agent: 'responder', prompt: (e) => `Handle ${e.type}`, tenant: 'acme' },
      },
      {
        // A verifier library's answer: false for a bad signature, the delivery otherwise.
        name: 'custom',
        verify: (request, body) =>
          request.headers.get('x-custom-token') === 'let-me-in' && {
            eventId: request.headers.get('x-custom-id') ?? '',
            body: JSON.parse(body) as unknown,
          },
        run: { agent: 'responder', prompt: (e) => `Handle ${e.eventId}` },
      },
      {
        name: 'custom-misconfigured',
        verify: () => true as unknown as VerifiedDelivery,
        run: { agent: 'responder', prompt: (e) => e.eventId },
      },
    ];
    server = createServer(
      toNodeListener(
        createTriggerHandler({
          client: env.agents,
          triggers,
          credentialStore: store,
          log: (line) => logged.push(line),
        }),
      ),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.close();
    await env?.stop();
    await slack?.close();
  });

  const post = (path: string, delivery: { headers: Record<string, string>; body: string }) =>
    fetch(`${url}/${path}`, { method: 'POST', headers: delivery.headers, body: delivery.body });

  /** Whether a workflow with this id exists. */
  const exists = (workflowId: string) =>
    env.client.workflow
      .getHandle(workflowId)
      .describe()
      .then(
        () => true,
        () => false,
      );

  it('starts one run for a Slack mention delivered three times, and the run answers in the thread', async () => {
    const mention = slackMention(`Ev${randomUUID()}`, '<@UBOT> is the build green?', {
      ts: '1700000000.000100',
    });
    const answers = [];
    for (const retry of [0, 1, 2]) {
      const response = await post('slack', slackDelivery(SLACK_SECRET, mention, { retry }));
      expect(response.status).toBe(200);
      answers.push(await response.json());
    }
    const workflowId = `trigger-slack-${mention.event_id}`;
    expect(answers).toEqual([{ started: workflowId }, { duplicate: workflowId }, { duplicate: workflowId }]);
    const result = await env.agents.getHandle(workflowId).result();
    expect(result.output).toBe('Replied.');
    const posts = slack.requests.filter((request) => request.path === '/api/chat.postMessage');
    expect(posts).toHaveLength(1);
    expect(JSON.parse(posts[0]!.body)).toMatchObject({ channel: 'C0001', thread_ts: '1700000000.000100' });
    // After the run has finished, a late redelivery still starts nothing.
    const late = await post('slack', slackDelivery(SLACK_SECRET, mention, { retry: 3 }));
    expect(await late.json()).toEqual({ duplicate: workflowId });
    // The signing secret is nowhere in the run's history.
    expect((await historyText(env.client.workflow.getHandle(workflowId))).includes(SLACK_SECRET)).toBe(false);
  });

  it('starts exactly 20 runs for 100 concurrent deliveries of 20 events', async () => {
    const events = Array.from({ length: 20 }, (_, i) =>
      slackMention(`EvBurst${i}-${randomUUID()}`, `burst ${i}`),
    );
    const deliveries = Array.from({ length: 100 }, (_, i) =>
      slackDelivery(SLACK_SECRET, events[i % 20]!, { retry: Math.floor(i / 20) }),
    );
    const responses = await Promise.all(deliveries.map((delivery) => post('burst', delivery)));
    expect(responses.map((response) => response.status)).toEqual(Array(100).fill(200));
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as Array<{
      started?: string;
      duplicate?: string;
    }>;
    const started = bodies.filter((body) => body.started).map((body) => body.started);
    expect(new Set(started).size).toBe(20);
    expect(started).toHaveLength(20);
    expect(bodies.filter((body) => body.duplicate)).toHaveLength(80);
    for (const event of events) {
      const result = await env.agents.getHandle(`trigger-burst-${event.event_id}`).result();
      expect(result.output).toBe(`Seen: ${event.event_id}`);
    }
  });

  it('refuses a wrong signature, a timestamp 6 minutes old and a body changed after signing, starting nothing', async () => {
    const mention = slackMention(`Ev${randomUUID()}`, 'hello');
    const wrong = slackDelivery('not-the-secret', mention);
    const stale = slackDelivery(SLACK_SECRET, mention, { timestamp: Math.floor(Date.now() / 1000) - 360 });
    const signed = slackDelivery(SLACK_SECRET, mention);
    const changed = { ...signed, body: signed.body.replace('hello', 'HELLO') };
    for (const delivery of [wrong, stale, changed]) {
      const response = await post('slack', delivery);
      expect(response.status).toBe(401);
      const { error } = (await response.json()) as { error: string };
      expect(error).toMatch(/X-Slack-(Signature|Request-Timestamp)/);
      expect(error).not.toContain(SLACK_SECRET);
    }
    expect(await exists(`trigger-slack-${mention.event_id}`)).toBe(false);
    expect(logged.some((line) => line.includes(SLACK_SECRET))).toBe(false);
  });

  it('answers 404 for an unknown trigger, 400 for a signed body that is not JSON, and Slack’s url_verification challenge', async () => {
    const unknown = await post('nope', slackDelivery(SLACK_SECRET, {}));
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toMatch(/No trigger named "nope"/);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const { createHmac } = await import('node:crypto');
    const raw = 'token=x&text=not-json';
    const notJson = await post('slack', {
      body: raw,
      headers: {
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': `v0=${createHmac('sha256', SLACK_SECRET).update(`v0:${timestamp}:${raw}`).digest('hex')}`,
      },
    });
    expect(notJson.status).toBe(400);
    const challenge = await post(
      'slack',
      slackDelivery(SLACK_SECRET, { type: 'url_verification', challenge: 'c-123', token: 't' }),
    );
    expect(await challenge.json()).toEqual({ challenge: 'c-123' });
  });

  it('a custom verify that answers false refuses with 401; one that answers no delivery is named as misconfigured', async () => {
    const eventId = `custom-${randomUUID()}`;
    const body = JSON.stringify({ hello: 'world' });
    const refused = await post('custom', {
      headers: { 'x-custom-token': 'wrong', 'x-custom-id': eventId },
      body,
    });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe(
      'Not verified: the verify of trigger "custom" refused it.',
    );
    expect(await exists(`trigger-custom-${eventId}`)).toBe(false);

    const misconfigured = await post('custom-misconfigured', { headers: {}, body });
    expect(misconfigured.status).toBe(500);
    expect(((await misconfigured.json()) as { error: string }).error).toMatch(
      /^Trigger "custom-misconfigured": verify answered true; it must return \{ eventId, body \}/,
    );

    const accepted = await post('custom', {
      headers: { 'x-custom-token': 'let-me-in', 'x-custom-id': eventId },
      body,
    });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ started: `trigger-custom-${eventId}` });
  });

  it('verifies and deduplicates Linear and Standard Webhooks deliveries the same way', async () => {
    const deliveryId = randomUUID();
    const linear = linearDelivery(LINEAR_SECRET, deliveryId, {
      type: 'Issue',
      action: 'create',
      data: { id: 'ISS-1', title: 'Crash' },
    });
    expect(await (await post('linear', linear)).json()).toEqual({ started: `trigger-linear-${deliveryId}` });
    expect(await (await post('linear', linear)).json()).toEqual({
      duplicate: `trigger-linear-${deliveryId}`,
    });
    const stale = linearDelivery(
      LINEAR_SECRET,
      randomUUID(),
      { type: 'Issue' },
      { webhookTimestamp: Date.now() - 61_000 },
    );
    expect((await post('linear', stale)).status).toBe(401);

    const webhook = new Webhook(STANDARD_SECRET);
    const id = `msg_${randomUUID()}`;
    const body = JSON.stringify({ type: 'invoice.paid', data: { id: 'in_1' } });
    const now = new Date();
    const standard = {
      body,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': webhook.sign(id, now, body),
      },
    };
    expect(await (await post('standard', standard)).json()).toEqual({ started: `trigger-standard-${id}` });
    expect(await (await post('standard', standard)).json()).toEqual({ duplicate: `trigger-standard-${id}` });
    const run = await env.agents.getHandle(`trigger-standard-${id}`).result();
    expect(run.output).toBe('Seen: Handle invoice.paid');
    const described = await env.client.workflow.getHandle(`trigger-standard-${id}`).describe();
    expect(described.memo).toEqual({ agent: 'responder', tenant: 'acme' });
  });

  it('sends each message of a Slack thread into one chat session, once per event', async () => {
    const first = slackMention(`Ev${randomUUID()}`, 'first question', { ts: '1700000100.000100' });
    const second = slackMention(`Ev${randomUUID()}`, 'second question', {
      ts: '1700000200.000100',
      threadTs: '1700000100.000100',
    });
    for (const mention of [first, second, first]) {
      expect((await post('slack-thread', slackDelivery(SLACK_SECRET, mention))).status).toBe(200);
    }
    const session = env.agents.chatSession('responder', {
      sessionId: 'slack-C0001-1700000100.000100',
      memoryStore: env.memoryStore,
    });
    for (let attempt = 0; attempt < 100; attempt++) {
      if ((await session.history()).filter((m) => m.role === 'assistant').length >= 2) break;
      await sleep(100);
    }
    await sleep(500); // a third (duplicate) turn would have started by now
    const history = await session.history();
    expect(history.map((m) => `${m.role}: ${m.content}`)).toEqual([
      'user: first question',
      'assistant: Seen: first question',
      'user: second question',
      'assistant: Seen: second question',
    ]);
  });

  it('refuses a message id the session already took, whatever update carries it', async () => {
    const session = env.agents.chatSession('responder', { sessionId: `dup-${randomUUID()}` });
    await session.send('hello', { messageId: 'delivery-1' });
    const again = await session.deliver('hello again', { messageId: 'delivery-1' });
    expect(again).toEqual({ duplicate: true });
    // Another update id with the same message id (as after continue-as-new, where update ids are forgotten).
    const refused = await env.client.workflow
      .getHandle(session.workflowId)
      .executeUpdate('toolkit.send', { args: [{ prompt: 'hello', turnId: 'delivery-1' }], updateId: 'other' })
      .then(
        () => undefined,
        (error: unknown) => error as Error & { cause?: Error },
      );
    expect(refused?.cause?.message).toBe('The session already took message delivery-1; it is not run again.');
  });

  it('fires a schedule every second, at once on trigger, and not while paused', async () => {
    const id = `every-second-${randomUUID()}`;
    await env.agents.schedules.create(id, {
      agent: 'responder',
      prompt: 'tick',
      every: '1s',
      tenant: 'acme',
    });
    try {
      const fired = async (count: number) => {
        for (let attempt = 0; attempt < 100; attempt++) {
          const info = await env.agents.schedules.describe(id);
          if (info.recentRuns.length >= count) return info;
          await sleep(100);
        }
        throw new Error(`the schedule did not fire ${count} times`);
      };
      const first = await fired(1);
      expect(first).toMatchObject({ id, agent: 'responder', tenant: 'acme', paused: false });
      const run = await env.agents.getHandle(first.recentRuns[0]!.workflowId).result();
      expect(run.output).toBe('Seen: tick');
      expect((await env.agents.schedules.list()).map((s) => s.id)).toContain(id);

      await env.agents.schedules.pause(id);
      const paused = (await env.agents.schedules.describe(id)).recentRuns.length;
      await sleep(2_500);
      expect((await env.agents.schedules.describe(id)).recentRuns.length).toBe(paused);
      await env.agents.schedules.trigger(id);
      await fired(paused + 1);
      expect((await env.agents.schedules.describe(id)).paused).toBe(true);
    } finally {
      await env.agents.schedules.delete(id);
    }
  });

  it('sends a scheduled prompt into a chat session, starting it when needed', async () => {
    const id = `to-session-${randomUUID()}`;
    const sessionId = `digest-${randomUUID()}`;
    await env.agents.schedules.create(id, {
      agent: 'responder',
      prompt: 'weekly digest',
      cron: '0 9 * * MON',
      session: sessionId,
      paused: true,
    });
    try {
      const session = env.agents.chatSession('responder', { sessionId, memoryStore: env.memoryStore });
      const answered = async (count: number) => {
        for (let attempt = 0; attempt < 100; attempt++) {
          if ((await session.history()).filter((m) => m.role === 'assistant').length >= count) return;
          await sleep(100);
        }
      };
      // The second firing comes once the first has been taken (overlap 'skip' drops a firing while one runs).
      await env.agents.schedules.trigger(id);
      await answered(1);
      await sleep(1_100); // firings are named by the second: the next one needs a new name
      await env.agents.schedules.trigger(id);
      await answered(2);
      expect((await session.history()).map((m) => m.content)).toEqual([
        'weekly digest',
        'Seen: weekly digest',
        'weekly digest',
        'Seen: weekly digest',
      ]);
    } finally {
      await env.agents.schedules.delete(id);
    }
  });
});
