import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLI_CONFIG, runCli, startCli } from '../support/cli.ts';

describe('toolkit-agent triggers and schedules', () => {
  let home: string;
  let env: Record<string, string>;
  let worker: ReturnType<typeof startCli>;

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'cli-triggers-'));
    env = {
      TOOLKIT_AGENT_HOME: home,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      CLI_TASK_QUEUE: `cli-triggers-${randomUUID()}`,
    };
    worker = startCli(['-c', CLI_CONFIG, 'worker', '--json'], { env });
    await worker.waitForLine(/taskQueue/);
  });
  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await rm(home, { recursive: true, force: true });
  });

  it("triggers serve verifies the config's webhook and starts one run per delivery id", async () => {
    const secret = `hook-${randomUUID()}`;
    const stored = await runCli(['creds', 'set', 'hook_secret', '--type', 'api_key'], { env, input: secret });
    expect(stored.code, stored.stderr).toBe(0);
    const serve = startCli(
      ['-c', CLI_CONFIG, 'triggers', 'serve', '--port', '0', '--host', '127.0.0.1', '--json'],
      {
        env,
      },
    );
    try {
      const { port, triggers } = JSON.parse(await serve.waitForLine(/"port"/)) as {
        port: number;
        triggers: string[];
      };
      expect(triggers).toEqual(['issues']);
      const body = JSON.stringify({ action: 'opened', issue: { number: 41 } });
      const delivery = randomUUID();
      const post = async (signature: string) =>
        fetch(`http://127.0.0.1:${port}/issues`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-github-event': 'issues',
            'x-github-delivery': delivery,
            'x-hub-signature-256': signature,
          },
          body,
        });
      const first = await post(await sign(secret, body));
      expect(await first.json()).toEqual({ started: `trigger-issues-${delivery}` });
      expect(await (await post(await sign(secret, body))).json()).toEqual({
        duplicate: `trigger-issues-${delivery}`,
      });
      expect((await post(await sign('wrong', body))).status).toBe(401);
      let shown: { status?: string; output?: string } = {};
      for (let attempt = 0; attempt < 50 && shown.status !== 'COMPLETED'; attempt++) {
        const show = await runCli(
          ['-c', CLI_CONFIG, 'runs', 'show', `trigger-issues-${delivery}`, '--json'],
          { env },
        );
        if (show.code === 0) shown = JSON.parse(show.stdout) as typeof shown;
        if (shown.status !== 'COMPLETED') await sleep(200);
      }
      expect(shown).toMatchObject({ status: 'COMPLETED', output: 'The sum is 42.' });
      expect(serve.stderr).not.toContain(secret);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });

  it('schedules create, list, pause, trigger and rm', async () => {
    const id = `cli-${randomUUID().slice(0, 8)}`;
    const cli = (...args: string[]) => runCli(['-c', CLI_CONFIG, 'schedules', ...args], { env });
    // An interval fires on multiples of itself since the epoch: at 1h a test that ran across the hour
    // saw a run of its own before the pause. 1000 days apart, no boundary falls within a test.
    const created = await cli(
      'create',
      id,
      '--agent',
      'helper',
      '--prompt',
      'add 20 and 22',
      '--every',
      '1000d',
      '--json',
    );
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ id, agent: 'helper', paused: false });
    expect((await cli('list')).stdout).toMatch(new RegExp(`${id}\\s+helper\\s+active`));
    expect((await cli('pause', id)).stderr).toContain(`Paused schedule ${id}.`);
    expect((await cli('list', '--json')).stdout).toContain('"paused":true');
    expect((await cli('trigger', id)).code).toBe(0);
    let runs: Array<{ workflowId: string }> = [];
    for (let attempt = 0; attempt < 50 && runs.length === 0; attempt++) {
      runs = (
        JSON.parse((await cli('list', '--json')).stdout) as Array<{ id: string; recentRuns: typeof runs }>
      ).find((s) => s.id === id)!.recentRuns;
      if (runs.length === 0) await sleep(200);
    }
    expect(runs).toHaveLength(1);
    expect((await cli('rm', id)).stderr).toContain(`Deleted schedule ${id}.`);
    expect((await cli('list')).stdout).not.toContain(id);
    const bad = await cli('create', 'x', '--agent', 'helper', '--prompt', 'p');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Give either --cron or --every.');
  });
});
