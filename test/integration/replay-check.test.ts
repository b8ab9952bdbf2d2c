import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duration } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AGENT_WORKFLOW_TYPES, replayHistories } from '../../src/deploy/replay.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { buildChangedWorkflowBundle } from '../support/changed-bundle.ts';
import { runCli } from '../support/cli.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

const RECORDED = new URL('../fixtures/histories/d61c4a6/', import.meta.url);
const bundle = () => ({ workflowBundle: { codePath: inject('workflowBundlePath') } });

interface SavedHistory {
  events: Array<{
    workflowExecutionStartedEventAttributes?: { workflowId?: string };
    activityTaskScheduledEventAttributes?: { activityType?: { name?: string } };
  }>;
}

it('knows every workflow type the worker registers', async () => {
  const workflows = await import('../../src/workflows/index.ts');
  expect([...AGENT_WORKFLOW_TYPES].sort()).toEqual(Object.keys(workflows).sort());
});

describe('replayHistories and `toolkit-agent replay` on saved histories', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'replay-check-'));
    const good = await readFile(new URL('agent-run.json', RECORDED), 'utf8');
    await writeFile(join(dir, 'good.json'), good);
    await writeFile(join(dir, 'chat.json'), await readFile(new URL('chat-session.json', RECORDED), 'utf8'));
    // As if recorded by a build whose workflow scheduled another first activity.
    const broken = JSON.parse(good) as SavedHistory;
    broken.events[0]!.workflowExecutionStartedEventAttributes!.workflowId = 'broken-run';
    const scheduled = broken.events.find((e) => e.activityTaskScheduledEventAttributes)!;
    scheduled.activityTaskScheduledEventAttributes!.activityType = { name: 'resolveRunOfAnOldBuild' };
    await writeFile(join(dir, 'broken.json'), JSON.stringify(broken));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('names the history that would break and why, and passes the others', async () => {
    const report = await replayHistories({ dir, ...bundle() });
    expect(report.replayed).toEqual({ agentRun: 2, chatSession: 1 });
    expect(report.failures.map((f) => [f.workflowId, f.workflowType])).toEqual([['broken-run', 'agentRun']]);
    expect(report.failures[0]!.reason).toMatch(/Nondeterminism/);
  });

  it('the CLI exits 1 naming the broken workflow, and 0 when every history replays', async () => {
    const failing = await runCli(['replay', '--dir', dir], {
      env: { TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath') },
    });
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('Replayed 3 histories (agentRun 2, chatSession 1)');
    expect(failing.stdout).toMatch(/would break agentRun broken-run .*Nondeterminism/);
    expect(failing.stderr).toContain('1 workflow(s) would fail on this build');

    await rm(join(dir, 'broken.json'));
    const passing = await runCli(['replay', '--dir', dir, '--json'], {
      env: { TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath') },
    });
    expect(passing.code).toBe(0);
    expect(JSON.parse(passing.stdout)).toEqual({ replayed: { agentRun: 1, chatSession: 1 }, failures: [] });
  }, 60_000);

  it('refuses a folder with a file that is no history, saying which', async () => {
    const odd = await mkdtemp(join(tmpdir(), 'replay-odd-'));
    await writeFile(join(odd, 'notes.json'), '{"hello": 1}');
    await expect(replayHistories({ dir: odd, ...bundle() })).rejects.toThrow(
      /notes\.json does not start with a WorkflowExecutionStarted event/,
    );
    await rm(odd, { recursive: true, force: true });
  });
});

describe('replayHistories against the server', () => {
  let env: TestWorker;

  beforeAll(async () => {
    env = await startTestWorker({
      agent: { llm: new ScriptedModel(Array.from({ length: 4 }, (_, i) => ({ text: `answer ${i}` }))) },
    });
    await env.agents.run('agent', 'a run');
    const chat = env.agents.chatSession('agent', { memoryStore: env.memoryStore });
    await chat.send('a turn');
    await chat.send('another turn');
  });
  afterAll(() => env?.stop());

  it('downloads the runs and sessions of a task queue and replays them on this build', async () => {
    const report = await replayHistories({
      client: env.client,
      query: `TaskQueue = '${env.taskQueue}'`,
      since: '1h',
      ...bundle(),
    });
    expect(report).toEqual({ replayed: { agentRun: 1, chatSession: 1 }, failures: [] });
  });

  it('reports every one of them against a build that changed the workflow code', async () => {
    const report = await replayHistories({
      client: env.client,
      query: `TaskQueue = '${env.taskQueue}'`,
      workflowBundle: await buildChangedWorkflowBundle(),
    });
    expect(report.failures.map((f) => f.workflowType).sort()).toEqual(['agentRun', 'chatSession']);
    for (const failure of report.failures) expect(failure.reason).toMatch(/Nondeterminism/);
  }, 60_000);

  it('refuses a limit below 1 and a since that is no duration, naming the option', async () => {
    await expect(replayHistories({ client: env.client, limit: 0 })).rejects.toThrow(
      'replayHistories: `limit` must be a whole number of at least 1; got 0.',
    );
    await expect(replayHistories({ client: env.client, since: 'yesterday' as Duration })).rejects.toThrow(
      "replayHistories: `since` must be a date or a duration such as '24h' or '7d'; got yesterday.",
    );
    await expect(replayHistories({})).rejects.toThrow('give either `client` (download histories) or `dir`');
  });

  it('takes at most `limit` histories of each type', async () => {
    await env.agents.run('agent', 'a second run');
    const report = await replayHistories({
      client: env.client,
      query: `TaskQueue = '${env.taskQueue}'`,
      limit: 1,
      ...bundle(),
    });
    expect(report.replayed).toEqual({ agentRun: 1, chatSession: 1 });
  });
});
