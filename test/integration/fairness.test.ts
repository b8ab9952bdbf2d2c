import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Priority } from '@temporalio/common';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentClient } from '../../src/client/agent-client.ts';
import { ConfigurationError } from '../../src/errors.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

/** Records the priority Temporal dispatched each of its activity tasks with. */
class PriorityProbe extends BaseConnectorTool {
  readonly name = 'probe';
  readonly description = 'Says which priority its task carried';
  readonly parameters = z.object({});
  readonly seen: Array<Priority | undefined> = [];
  async run(): Promise<ToolOutput> {
    this.seen.push(Context.current().info.priority);
    return { text: 'ok', metadata: {} };
  }
}

describe('fair scheduling: the tenant is the fairness key of the run, its activities and its sub-runs', () => {
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it('starts the workflow with the tenant, its weight and the priority; activities and a sub-agent inherit them', async () => {
    const probe = new PriorityProbe();
    const env = await startTestWorker({
      main: {
        llm: new ScriptedModel([
          {
            toolCalls: [
              { name: 'probe', args: {}, id: 'p1' },
              { name: 'agent_helper', args: { task: 'probe too' }, id: 'h1' },
            ],
          },
          { text: 'done' },
        ]),
        tools: [probe],
        subAgents: { helper: 'helper' },
      },
      helper: {
        llm: new ScriptedModel([{ toolCalls: [{ name: 'probe', args: {}, id: 'p2' }] }, { text: 'probed' }]),
        tools: [probe],
      },
    });
    workers.push(env);
    const agents = new AgentClient({
      client: env.client,
      taskQueue: env.taskQueue,
      fairness: { weights: { acme: 2.5 } },
    });
    const handle = await agents.start('main', 'Probe', { tenant: 'acme', priority: 2 });
    const result = await handle.result();
    expect(result.metadata.stop_reason).toBe('completed');

    const expected = { fairnessKey: 'acme', fairnessWeight: 2.5, priorityKey: 2 };
    const description = await handle.workflow.describe();
    expect(description.priority).toMatchObject(expected);
    const history = await handle.workflow.fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    expect(started?.priority).toMatchObject(expected);
    // The tool's activity task of the run and that of the child run were dispatched with the run's priority.
    expect(probe.seen).toHaveLength(2);
    for (const priority of probe.seen) expect(priority).toMatchObject(expected);
    const childId = result.metadata.sub_runs?.[0]?.workflow_id;
    expect(childId).toBeTruthy();
    const child = await env.client.workflow.getHandle(childId!).describe();
    expect(child.priority).toMatchObject(expected);
  });

  it("gives a schedule's runs and a poller (whose runs inherit it) their tenant's fairness key and weight", async () => {
    const env = await startTestWorker({ plain: { llm: new ScriptedModel([]) } });
    workers.push(env);
    const agents = new AgentClient({
      client: env.client,
      taskQueue: env.taskQueue,
      fairness: { weights: { acme: 4 } },
    });
    const scheduleId = `fair-${randomUUID()}`;
    await agents.schedules.create(scheduleId, {
      agent: 'plain',
      prompt: 'tick',
      every: '1h',
      tenant: 'acme',
      paused: true,
    });
    try {
      const action = (await env.client.schedule.getHandle(scheduleId).describe()).action;
      expect(action.type === 'startWorkflow' ? action.priority : undefined).toMatchObject({
        fairnessKey: 'acme',
        fairnessWeight: 4,
      });
    } finally {
      await agents.schedules.delete(scheduleId);
    }
    const pollerId = `fair-${randomUUID()}`;
    const { workflowId } = await agents.pollers.start(pollerId, {
      source: 'gmail',
      credentialKey: 'mail',
      every: 3_600_000,
      run: { agent: 'plain' },
      tenant: 'acme',
    });
    try {
      const poller = await env.client.workflow.getHandle(workflowId).describe();
      expect(poller.priority).toMatchObject({ fairnessKey: 'acme', fairnessWeight: 4 });
    } finally {
      await agents.pollers.stop(pollerId);
    }
  });

  it('leaves the fairness key off with fairness disabled, and refuses bad weights and priorities by name', async () => {
    const env = await startTestWorker({ plain: { llm: new ScriptedModel([{ text: 'hi' }]) } });
    workers.push(env);
    const agents = new AgentClient({
      client: env.client,
      taskQueue: env.taskQueue,
      fairness: { disabled: true },
    });
    const handle = await agents.start('plain', 'Hi', { tenant: 'acme' });
    await handle.result();
    expect((await handle.workflow.describe()).priority?.fairnessKey ?? '').toBe('');

    expect(
      () =>
        new AgentClient({ client: env.client, taskQueue: env.taskQueue, fairness: { weights: { acme: 0 } } }),
    ).toThrow(/fairness weight of tenant "acme" must be a number from 0.001 to 1000/);
    await expect(env.agents.start('plain', 'Hi', { priority: 9 })).rejects.toThrow(ConfigurationError);
    await expect(env.agents.start('plain', 'Hi', { priority: 9 })).rejects.toThrow(
      /priority must be an integer from 1/,
    );
  });
});
