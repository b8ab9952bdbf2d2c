import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { startGmailHistoryServer } from '../support/providers/gmail-history-server.ts';
import { historyText } from './helpers.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';

describe('pollers', () => {
  let dir: string;
  let connection: Connection;
  const processes: NodeProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pollers-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('starts exactly one run per new Gmail message, across a worker SIGKILL between two polls', async () => {
    const token = `gmail-token-${randomUUID()}`;
    const gmail = await startGmailHistoryServer(token);
    const taskQueue = `pollers-${randomUUID()}`;
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: taskQueue,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      MARKER_FILE: join(dir, 'marker.log'),
      MODE: 'poller',
      GMAIL_URL: gmail.url,
      GMAIL_TOKEN: token,
    };
    const worker = () => {
      const started = startNodeProcess('test/fixtures/worker-process.ts', env);
      processes.push(started);
      return started;
    };
    const first = worker();
    await first.waitForLine(/^READY$/);
    const client = new Client({ connection });
    const agents = new AgentClient({ client, taskQueue });
    const pollerId = `inbox-${randomUUID().slice(0, 8)}`;
    await agents.pollers.start(pollerId, {
      source: 'gmail',
      credentialKey: 'mail',
      every: 1000,
      run: { agent: 'reader', prompt: 'Mail from {{from}}: {{title}}' },
    });
    /** The runs the poller started (their ids come from the messages' ids). */
    const runsDone = async (ids: string[]) => {
      for (const id of ids) {
        const workflowId = `poll-${pollerId}-${id}`;
        // The run exists once the poller's next poll has found the message.
        for (let i = 0; i < 100; i++) {
          const found = await client.workflow
            .getHandle(workflowId)
            .describe()
            .then(
              () => true,
              () => false,
            );
          if (found) break;
          await sleep(100);
        }
        const result = await agents.getHandle(workflowId).result();
        expect(result.output).toMatch(/^read: Mail from Ada <ada@example.com>: /);
      }
    };
    // Wait for the first poll (it starts from now), then three messages arrive.
    for (let i = 0; i < 100 && !gmail.requests.some((r) => r.path.endsWith('/profile')); i++)
      await sleep(100);
    const early = gmail.deliver('Invoice 1', 'Invoice 2', 'Invoice 3');
    await runsDone(early);

    first.child.kill('SIGKILL');
    await first.exited;
    const late = gmail.deliver('Invoice 4', 'Invoice 5');
    const second = worker();
    await second.waitForLine(/^READY$/);
    await runsDone(late);
    await sleep(2_500); // two more polls: nothing new must start

    const runs: string[] = [];
    for await (const execution of client.workflow.list({
      query: `TaskQueue = '${taskQueue}' AND WorkflowType = 'agentRun'`,
    })) {
      runs.push(execution.workflowId);
    }
    expect(runs.sort()).toEqual([...early, ...late].map((id) => `poll-${pollerId}-${id}`).sort());
    const listed = await agents.pollers.list();
    expect(listed).toMatchObject([{ id: pollerId, source: 'gmail', agent: 'reader' }]);
    expect(listed[0]!.state?.lastError).toBeUndefined();
    // The poller's history holds no token.
    expect((await historyText(client.workflow.getHandle(`poller-${pollerId}`))).includes(token)).toBe(false);
    await agents.pollers.stop(pollerId);
    second.child.kill('SIGTERM');
    await gmail.close();
  }, 120_000);
});
