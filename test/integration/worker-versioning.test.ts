import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { describeDeployment, setCurrentVersion } from '../../src/deploy/rollout.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { createAgentWorker } from '../../src/worker.ts';
import { buildChangedWorkflowBundle } from '../support/changed-bundle.ts';
import { startGmailHistoryServer } from '../support/providers/gmail-history-server.ts';
import { CLI_CONFIG, runCli, startCli } from '../support/cli.ts';
import { collect, firstEvent } from './helpers.ts';
import { AddTool } from './tools.ts';

const EventType = temporal.api.enums.v1.EventType;

/**
 * The model of one build: it asks for `add` when the prompt says ADD, and otherwise answers with its
 * build's name, the prompt, and how many user turns came before (so an answer shows which build gave
 * it and that the conversation carried over).
 */
function buildModel(build: string): ScriptedModel {
  const step = (request: ModelRequest): ScriptedStep => {
    const last = request.messages.at(-1)!;
    if (last.role === 'tool') return { text: `${build} added: ${last.content}` };
    const users = request.messages.filter((m) => m.role === 'user');
    const prompt = users.at(-1)!.content;
    if (prompt.startsWith('ADD')) return { toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'add_1' }] };
    return { text: `${build} answers "${prompt}" after ${users.length - 1} earlier turn(s)` };
  };
  return new ScriptedModel(Array.from({ length: 20 }, () => step));
}

/** The build id of the deployment version a workflow's latest run is on. */
async function buildIdOf(handle: WorkflowHandle): Promise<string | null | undefined> {
  const { raw } = await handle.describe();
  return raw.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId;
}

describe('versioned workers: runs stay on their build, chat sessions move at their next turn', () => {
  const address = inject('temporalAddress');
  const deploymentName = `agents-${randomUUID().slice(0, 8)}`;
  const taskQueue = `test-${randomUUID()}`;
  const memoryStore = new InMemoryMemoryStore();
  const workers: Array<{ worker: Worker; running: Promise<void> }> = [];
  let connection: Connection;
  let nativeConnection: NativeConnection;
  let client: Client;
  let agents: AgentClient;
  const gmailToken = `gmail-${randomUUID()}`;
  let gmail: Awaited<ReturnType<typeof startGmailHistoryServer>>;
  const credentialStore = new InMemoryCredentialStore();

  beforeAll(async () => {
    gmail = await startGmailHistoryServer(gmailToken);
    await credentialStore.put({
      name: 'mail',
      type: 'bearer',
      token: gmailToken,
      metadata: { base_url: gmail.url, scopes: ['https://www.googleapis.com/auth/gmail.readonly'] },
    });
    nativeConnection = await NativeConnection.connect({ address });
    connection = await Connection.connect({ address });
    client = new Client({ connection });
    agents = new AgentClient({ client, taskQueue });
  });
  afterAll(async () => {
    for (const { worker } of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
    await Promise.all(workers.map(({ running }) => running));
    await connection?.close();
    await nativeConnection?.close();
    await gmail?.close();
  });

  /** Starts a worker of `buildId` and waits until the deployment knows its version. */
  async function startBuild(buildId: string, workflowBundle: { codePath: string } | { code: string }) {
    const worker = await createAgentWorker({
      connection: nativeConnection,
      taskQueue,
      memoryStore,
      workflowBundle,
      deployment: { name: deploymentName, buildId },
      agents: {
        agent: {
          llm: buildModel(buildId),
          tools: [new AddTool()],
          approval: { tools: ['add'] },
          credentialStore,
        },
      },
    });
    workers.push({ worker, running: worker.run() });
    await expect
      .poll(
        async () => (await describeDeployment(client, deploymentName).catch(() => undefined))?.versions ?? [],
        { timeout: 30_000, interval: 200 },
      )
      .toContainEqual(expect.objectContaining({ buildId }));
  }

  /** `toolkit-agent deploy <args>` on this test's deployment and server. */
  const deploy = (...args: string[]) =>
    runCli(['deploy', ...args, '--deployment-name', deploymentName, '--address', address]);

  it('keeps v1 runs on v1, starts new runs on v2, and moves the session to v2 after set-current, with no nondeterminism', async () => {
    await startBuild('v1', { codePath: inject('workflowBundlePath') });
    const current = await deploy('set-current', 'v1');
    expect(current.code, current.stderr).toBe(0);
    expect(current.stdout).toContain(`${deploymentName}: v1 is current`);

    // On v1: a run waiting for an approval, and a chat session with one turn.
    const waiting = await agents.start('agent', 'ADD two and three');
    await firstEvent(waiting.events(), 'approval_requested');
    const chat = agents.chatSession('agent', { sessionId: randomUUID(), memoryStore });
    expect((await chat.send('first')).output).toBe('v1 answers "first" after 0 earlier turn(s)');
    const session = client.workflow.getHandle(chat.workflowId);
    const firstSessionRun = (await session.describe()).runId;
    expect(await buildIdOf(session)).toBe('v1');
    const streamed = agents.chatSession('agent', { sessionId: randomUUID(), memoryStore });
    await streamed.send('first');
    // A poller of a Gmail stand-in, polling every second.
    const pollerId = `inbox-${randomUUID().slice(0, 8)}`;
    await agents.pollers.start(pollerId, {
      source: 'gmail',
      credentialKey: 'mail',
      every: 1000,
      run: { agent: 'agent', prompt: 'Mail: {{title}}' },
    });
    const poller = client.workflow.getHandle(`poller-${pollerId}`);
    await expect.poll(() => buildIdOf(poller), { timeout: 20_000, interval: 200 }).toBe('v1');

    // v2 changes the workflow code: a v1 history does not replay on it.
    const v2Bundle = await buildChangedWorkflowBundle();
    const v1History = await client.workflow.getHandle(waiting.workflowId).fetchHistory();
    await expect(
      Worker.runReplayHistory({ workflowBundle: v2Bundle }, v1History, waiting.workflowId),
    ).rejects.toBeInstanceOf(DeterminismViolationError);

    await startBuild('v2', v2Bundle);
    // The server refuses while v2 has not yet polled every task queue v1 serves (workflows, activities).
    await expect
      .poll(
        () =>
          setCurrentVersion(client, deploymentName, 'v2').then(
            () => true,
            () => false,
          ),
        {
          timeout: 30_000,
          interval: 200,
        },
      )
      .toBe(true);
    expect(await describeDeployment(client, deploymentName)).toMatchObject({ current: 'v2' });

    // The deployment shows what v1 still runs: the waiting run and the two sessions.
    await expect
      .poll(
        async () =>
          (await describeDeployment(client, deploymentName)).versions.find((v) => v.buildId === 'v1')
            ?.openWorkflows,
        { timeout: 20_000, interval: 200 },
      )
      .toBe(3);
    const status = await deploy('status', '--json');
    expect(status.code, status.stderr).toBe(0);
    const shown = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(shown).toMatchObject({ name: deploymentName, current: 'v2' });
    expect(shown).not.toHaveProperty('ramping');
    expect(shown.versions).toContainEqual(expect.objectContaining({ buildId: 'v1', openWorkflows: 3 }));

    // New runs start on v2.
    const fresh = await agents.start('agent', 'hello');
    expect((await fresh.result()).output).toBe('v2 answers "hello" after 0 earlier turn(s)');
    expect(await buildIdOf(client.workflow.getHandle(fresh.workflowId))).toBe('v2');

    // The run that began on v1 finishes on v1.
    await waiting.approve('add_1');
    expect((await waiting.result()).output).toBe('v1 added: 5');
    expect(await buildIdOf(client.workflow.getHandle(waiting.workflowId))).toBe('v1');

    // At its next turn the session continues as new onto v2, which answers, with the whole conversation.
    expect((await chat.send('second')).output).toBe('v2 answers "second" after 1 earlier turn(s)');
    expect(await buildIdOf(session)).toBe('v2');
    expect((await chat.send('third')).output).toBe('v2 answers "third" after 2 earlier turn(s)');
    // The poller continues as new onto v2 after a poll, and the runs it starts from then on are v2's.
    await expect.poll(() => buildIdOf(poller), { timeout: 20_000, interval: 200 }).toBe('v2');
    const [mailId] = gmail.deliver('Invoice 9');
    const mailRun = client.workflow.getHandle(`poll-${pollerId}-${mailId}`);
    await expect
      .poll(
        () =>
          mailRun.describe().then(
            () => true,
            () => false,
          ),
        { timeout: 20_000, interval: 200 },
      )
      .toBe(true);
    expect((await agents.getHandle(mailRun.workflowId).result()).output).toBe(
      'v2 answers "Mail: Invoice 9" after 0 earlier turn(s)',
    );
    await agents.pollers.stop(pollerId);

    // A streamed turn moves the same way.
    const events = await collect(streamed.stream('second'));
    expect(events.at(-1)).toMatchObject({
      type: 'run_completed',
      payload: { output: 'v2 answers "second" after 1 earlier turn(s)' },
    });
    expect(await buildIdOf(client.workflow.getHandle(streamed.workflowId))).toBe('v2');
    const firstRun = client.workflow.getHandle(chat.workflowId, firstSessionRun);
    expect((await firstRun.describe()).status.name).toBe('CONTINUED_AS_NEW');

    // Nothing on this task queue failed a workflow task (a nondeterminism error would).
    const failedTasks: string[] = [];
    for await (const { workflowId, history } of client.workflow
      .list({ query: `TaskQueue = '${taskQueue}'` })
      .intoHistories()) {
      for (const event of (history as temporal.api.history.v1.IHistory).events ?? []) {
        if (event.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED) failedTasks.push(workflowId);
      }
    }
    expect(failedTasks).toEqual([]);
  }, 120_000);

  it('ramp sends a share of new workflows to a version, and refuses a percentage above 100 or an unknown build', async () => {
    const ramped = await deploy('ramp', '25', 'v1');
    expect(ramped.code, ramped.stderr).toBe(0);
    expect(ramped.stdout).toContain(`${deploymentName}: v1 ramping at 25%`);
    expect(await describeDeployment(client, deploymentName)).toMatchObject({
      current: 'v2',
      ramping: { buildId: 'v1', percentage: 25 },
    });
    const above = await deploy('ramp', '150', 'v2');
    expect(above.code).toBe(2);
    expect(above.stderr).toContain('The percentage is a number from 0 to 100; got "150"');
    const unknown = await deploy('ramp', '10', 'no-such-build');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      `Worker deployment "${deploymentName}" has no version "no-such-build" yet`,
    );
  }, 60_000);
});

describe('toolkit-agent worker --deployment-name --build-id', () => {
  const address = inject('temporalAddress');
  const deploymentName = `cli-agents-${randomUUID().slice(0, 8)}`;
  let home: string;
  let connection: Connection;
  let env: Record<string, string>;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'cli-versioned-'));
    connection = await Connection.connect({ address });
    env = {
      TOOLKIT_AGENT_HOME: home,
      TEMPORAL_ADDRESS: address,
      TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      CLI_TASK_QUEUE: `cli-${randomUUID()}`,
    };
  });
  afterAll(async () => {
    await connection?.close();
    await rm(home, { recursive: true, force: true });
  });

  it('serves the config as a version of the deployment, which runs once it is current', async () => {
    const worker = startCli(
      ['-c', CLI_CONFIG, 'worker', '--deployment-name', deploymentName, '--build-id', 'b1', '--json'],
      { env },
    );
    try {
      const info = JSON.parse(await worker.waitForLine(/taskQueue/)) as Record<string, unknown>;
      expect(info).toMatchObject({ deployment: { name: deploymentName, buildId: 'b1' } });
      const client = new Client({ connection });
      await expect
        .poll(
          async () =>
            (await describeDeployment(client, deploymentName).catch(() => undefined))?.versions ?? [],
          { timeout: 30_000, interval: 200 },
        )
        .toContainEqual(expect.objectContaining({ buildId: 'b1' }));
      const current = await runCli(['deploy', 'set-current', 'b1', '--deployment-name', deploymentName], {
        env,
      });
      expect(current.code, current.stderr).toBe(0);
      const run = await runCli(['-c', CLI_CONFIG, 'run', 'add 1 and 1', '--no-worker'], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('The sum is 2.\n');
    } finally {
      worker.child.kill('SIGTERM');
    }
    expect(await worker.exited).toBe(0);
  }, 60_000);

  it('refuses a deployment name without a build id', async () => {
    const half = await runCli(['-c', CLI_CONFIG, 'worker', '--deployment-name', deploymentName], { env });
    expect(half.code).toBe(1);
    expect(half.stderr).toContain('--deployment-name and --build-id go together: give both, or neither.');
  });
});
