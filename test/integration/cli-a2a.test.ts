import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLI_CONFIG, runCli, startCli } from '../support/cli.ts';
import { a2aClient, artifactTexts, userMessage } from '../support/a2a-client.ts';

describe('toolkit-agent a2a serve', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'cli-a2a-'));
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it("serves the config's agents to A2A clients with the token from the environment", async () => {
    const token = `a2a-${randomUUID()}`;
    const env = {
      TOOLKIT_AGENT_HOME: home,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      CLI_TASK_QUEUE: `cli-a2a-${randomUUID()}`,
      TOOLKIT_AGENT_A2A_TOKEN: token,
    };
    const missing = await runCli(['-c', CLI_CONFIG, 'a2a', 'serve'], {
      env: { ...env, TOOLKIT_AGENT_A2A_TOKEN: '' },
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/Set TOOLKIT_AGENT_A2A_TOKEN/);
    const serve = startCli(['-c', CLI_CONFIG, 'a2a', 'serve', '--agent', 'helper', '--port', '0', '--json'], {
      env,
    });
    try {
      const { agents } = JSON.parse(await serve.waitForLine(/"url"/)) as { agents: Record<string, string> };
      expect(Object.keys(agents)).toEqual(['helper']);
      const client = await a2aClient(agents.helper!, token);
      const task = (await client.sendMessage(userMessage('add 8 and 9'))) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(artifactTexts(task)).toEqual(['The sum is 17.']);
      expect((await fetch(agents.helper!, { method: 'POST', body: '{}' })).status).toBe(401);
    } finally {
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
  });
});
