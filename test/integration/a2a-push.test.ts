import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Task } from '@a2a-js/sdk';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { serveA2a, type A2aServing } from '../../src/a2a/serve.ts';
import { AgentClient } from '../../src/client/agent-client.ts';
import { FileCredentialStore } from '../../src/credentials/file-store.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { a2aClient, artifactTexts, userMessage } from '../support/a2a-client.ts';
import { historyText } from './helpers.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

const TOKEN = `a2a-push-token-${randomUUID()}`;
const NOTIFY_TOKEN = `notify-secret-${randomUUID()}`;

interface Delivery {
  state: string;
  token: string | undefined;
  key: string | undefined;
}

/** A push notification receiver: records each POST's task state, token header and idempotency key. */
async function receiver(): Promise<{ url: string; deliveries: Delivery[]; server: Server }> {
  const deliveries: Delivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        task?: { status?: { state?: string } };
      };
      deliveries.push({
        state: String(body.task?.status?.state),
        token: request.headers['x-a2a-notification-token'] as string | undefined,
        key: request.headers['idempotency-key'] as string | undefined,
      });
      response.writeHead(200).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/notify`, deliveries, server };
}

describe('A2A push notifications', () => {
  let dir: string;
  let connection: Connection;
  let serving: A2aServing;
  let hook: Awaited<ReturnType<typeof receiver>>;
  const processes: NodeProcess[] = [];
  const taskQueue = `a2a-push-${randomUUID()}`;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'a2a-push-'));
    env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: taskQueue,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      CREDENTIALS_FILE: join(dir, 'credentials.json'),
      MODE: 'worker',
    };
    connection = await Connection.connect({ address: inject('temporalAddress') });
    hook = await receiver();
    serving = await serveA2a({
      // The card's view of the agent the worker process runs (its model is never called here).
      agents: {
        guarded: {
          llm: new ScriptedModel([]),
          credentialStore: new FileCredentialStore({ path: env.CREDENTIALS_FILE! }),
        },
      },
      client: new AgentClient({ client: new Client({ connection }), taskQueue }),
      transport: { port: 0, bearerToken: TOKEN },
    });
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await serving?.close();
    hook?.server.close();
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('notifies each state of a task once, across a worker SIGKILL, with the token kept out of history', async () => {
    const first = startNodeProcess('test/fixtures/a2a-worker.ts', env);
    processes.push(first);
    await first.waitForLine(/^READY$/);
    const client = await a2aClient(serving.agentUrls.guarded!, TOKEN);
    expect((await client.getAgentCard()).capabilities?.pushNotifications).toBe(true);

    const blocked = (await client.sendMessage(
      userMessage('2 + 3, please', { push: { url: hook.url, token: NOTIFY_TOKEN } }),
    )) as Task;
    expect(blocked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    await expect
      .poll(() => hook.deliveries.map((d) => d.state), { timeout: 20_000 })
      .toContain('TASK_STATE_INPUT_REQUIRED');
    const configs = await client.listTaskPushNotificationConfig({
      tenant: '',
      taskId: blocked.id,
      pageSize: 0,
      pageToken: '',
    });
    expect(configs.configs.map((config) => config.url)).toEqual([hook.url]);

    // The worker dies while the task waits; another takes over, and the approval finishes the task.
    first.child.kill('SIGKILL');
    await first.exited;
    const second = startNodeProcess('test/fixtures/a2a-worker.ts', env);
    processes.push(second);
    await second.waitForLine(/^READY$/);
    const done = (await client.sendMessage(userMessage('approve', { taskId: blocked.id }))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactTexts(done)).toEqual(['Five.']);

    await expect
      .poll(() => hook.deliveries.map((d) => d.state), { timeout: 45_000 })
      .toContain('TASK_STATE_COMPLETED');
    // The notifier ends after the final state: no later delivery comes.
    await expect.poll(() => notifierStatus(connection, blocked.id), { timeout: 10_000 }).toBe('COMPLETED');
    const counts = new Map<string, number>();
    for (const delivery of hook.deliveries) counts.set(delivery.state, (counts.get(delivery.state) ?? 0) + 1);
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    // States the task passed through between two looks (working, right after the approval) may be skipped.
    expect(hook.deliveries.map((d) => d.state)).toContain('TASK_STATE_INPUT_REQUIRED');
    expect(hook.deliveries.at(-1)?.state).toBe('TASK_STATE_COMPLETED');
    expect(hook.deliveries.every((d) => d.token === NOTIFY_TOKEN)).toBe(true);
    expect(new Set(hook.deliveries.map((d) => d.key)).size).toBe(hook.deliveries.length);

    // The token is in the credential store, not in any history of the task's workflows.
    const temporal = new Client({ connection });
    for (const id of [blocked.id, ...(await listNotifiers(temporal, blocked.id))]) {
      const history = await historyText(temporal.workflow.getHandle(id));
      expect(history).not.toContain(NOTIFY_TOKEN);
    }
    expect(await readFile(env.CREDENTIALS_FILE!, 'utf8')).toContain(NOTIFY_TOKEN);
  });
});

async function notifierStatus(connection: Connection, taskId: string): Promise<string> {
  const [id] = await listNotifiers(new Client({ connection }), taskId);
  return (await new Client({ connection }).workflow.getHandle(id!).describe()).status.name;
}

async function listNotifiers(client: Client, taskId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const workflow of client.workflow.list({ query: `WorkflowType = 'a2aPushNotifications'` })) {
    if (workflow.workflowId.startsWith(`a2a-push-${taskId}-`)) ids.push(workflow.workflowId);
  }
  expect(ids).toHaveLength(1);
  return ids;
}
