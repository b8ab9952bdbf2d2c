import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import { findTemporalCli } from '../../src/embedded/temporal-cli.ts';
import { CREATE_SEARCH_ATTRIBUTES_COMMAND } from '../../src/visibility/search-attributes.ts';
import { runCli } from '../support/cli.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { ModelError } from '../../src/errors.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import type { AgentRunListing, ListRunsOptions } from '../../src/visibility/list.ts';
import { createAgentWorker } from '../../src/worker.ts';
import { AddTool } from './tools.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

const run = promisify(execFile);
const KEYWORD = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;

/** A model that adds once and then answers, as often as asked. */
function addingModel(): ScriptedModel {
  const steps = Array.from({ length: 20 }, (_, i) =>
    i % 2 === 0
      ? { toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: `call_${i}` }] }
      : { text: 'The sum is 5.' },
  );
  return new ScriptedModel(steps);
}

/** Visibility is eventually consistent: ask until the listing has `count` entries. */
async function listUntil(
  agents: AgentClient,
  opts: ListRunsOptions,
  count: number,
): Promise<AgentRunListing[]> {
  for (let attempt = 0; ; attempt++) {
    const listed = await agents.list(opts);
    if (listed.length >= count || attempt === 100) return listed;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('runs in the Temporal UI and in listings', () => {
  let env: TestWorker;
  let cli: string;

  beforeAll(async () => {
    env = await startTestWorker({
      support: { llm: addingModel(), tools: [new AddTool()] },
      billing: { llm: addingModel(), tools: [new AddTool()] },
      limited: { llm: addingModel(), tools: [new AddTool()], maxIterations: 1 },
      chatty: { llm: addingModel(), tools: [new AddTool()] },
      refused: {
        llm: new ScriptedModel([
          () => {
            throw new ModelError('The provider refused the request (400)', { status: 400 });
          },
        ]),
      },
    });
    const found = await findTemporalCli({ install: false });
    if (!found) throw new Error('The temporal CLI is not installed: run `npm run temporal:ensure`.');
    cli = found.path;
  });
  afterAll(async () => {
    await env?.stop();
  });

  async function describeWithCli(workflowId: string): Promise<string> {
    const { stdout } = await run(cli, [
      'workflow',
      'describe',
      '--address',
      inject('temporalAddress'),
      '--workflow-id',
      workflowId,
    ]);
    return stdout;
  }

  it('gives each run a summary, its activities names and its details the step', async () => {
    const handle = await env.agents.start('support', 'Add two and three\nfor the quarterly report', {
      tenant: 'acme',
    });
    await handle.result();
    const described = await describeWithCli(handle.workflowId);
    expect(described).toMatch(/StaticSummary\s+"support run · tenant acme"/);
    expect(described).not.toContain('Add two and three');

    const withPrompt = await env.agents.start('support', 'Add two and three\nfor the quarterly report', {
      tenant: 'acme',
      summaryIncludesPrompt: true,
    });
    await withPrompt.result();
    const shown = await describeWithCli(withPrompt.workflowId);
    expect(shown).toMatch(/StaticSummary\s+"support run · tenant acme · Add two and three"/);
    expect(shown).not.toContain('quarterly');

    const { events } = await handle.workflow.fetchHistory();
    const summaries = (events ?? [])
      // A local activity's summary is on the marker that records it.
      .filter(
        (event) =>
          event.activityTaskScheduledEventAttributes ||
          event.markerRecordedEventAttributes?.markerName === 'core_local_activity',
      )
      .map((event) => defaultPayloadConverter.fromPayload<string>(event.userMetadata!.summary!));
    // The answering step records the run's usage itself: no local activity at the end.
    expect(summaries).toEqual(['open run, first model step', 'tool add', 'model scripted']);

    const metadata = await handle.workflow.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe('**Completed** after 2 steps');
  });

  it('says in its details how a run ended, not the step it was on', async () => {
    const handle = await env.agents.start('limited', 'Add two and three');
    expect((await handle.result()).metadata.stop_reason).toBe('max_iterations');
    const metadata = await handle.workflow.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe('**Stopped at the iteration limit** after 1 step');

    const failed = await env.agents.start('refused', 'Hello');
    await expect(failed.result()).rejects.toThrow();
    const details = await failed.workflow.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(details.currentDetails).toMatch(/^\*\*Failed\*\* after 1 step: .*refused the request \(400\)/);
    // Without encryption the operator's CLI reads why it failed (the UI too, with no codec server).
    const described = await describeWithCli(failed.workflowId);
    expect(described).toContain('refused the request (400)');
    expect(described).not.toContain('Encoded failure');
  });

  it('lists runs and chat sessions by agent, tenant, kind and status, newest first', async () => {
    const started = [];
    for (const [agent, tenant] of [
      ['support', 'acme'],
      ['support', 'globex'],
      ['billing', 'acme'],
    ] as const) {
      const handle = await env.agents.start(agent, 'Add two and three', { tenant });
      await handle.result();
      started.push({ workflowId: handle.workflowId, agent, tenant });
    }
    const session = env.agents.chatSession('billing', { tenant: 'globex' });
    await session.send('Add two and three');

    const support = await listUntil(env.agents, { agent: 'support', kind: 'run' }, 4);
    // Two runs from the first test, two from this one.
    expect(support.map((r) => r.agent)).toEqual(['support', 'support', 'support', 'support']);
    expect(support.slice(0, 2).map((r) => r.workflowId)).toEqual([
      started[1]!.workflowId,
      started[0]!.workflowId,
    ]);
    expect(support[0]).toMatchObject({ tenant: 'globex', kind: 'run', status: 'completed' });
    expect(support[0]!.closeTime).toBeInstanceOf(Date);
    expect(support[0]!.startTime.getTime()).toBeGreaterThanOrEqual(support[1]!.startTime.getTime());

    const acme = await listUntil(env.agents, { tenant: 'acme', kind: 'run' }, 4);
    expect(new Set(acme.map((r) => r.tenant))).toEqual(new Set(['acme']));
    expect(acme.map((r) => r.agent).sort()).toEqual(['billing', 'support', 'support', 'support']);

    const chats = await listUntil(env.agents, { kind: 'chat' }, 1);
    expect(chats).toEqual([
      expect.objectContaining({
        workflowId: session.workflowId,
        agent: 'billing',
        tenant: 'globex',
        kind: 'chat',
        status: 'running',
        closeTime: undefined,
      }),
    ]);
    const globexBilling = await listUntil(env.agents, { agent: 'billing', tenant: 'globex' }, 1);
    expect(globexBilling.map((r) => r.workflowId)).toEqual([session.workflowId]);
    expect(await env.agents.list({ agent: 'billing', status: 'running' })).toEqual([
      expect.objectContaining({ workflowId: session.workflowId }),
    ]);
    expect(await env.agents.list({ agent: 'support', limit: 2 })).toHaveLength(2);
    expect(await env.agents.list({ agent: 'nobody' })).toEqual([]);
    await expect(env.agents.list({ limit: 0 })).rejects.toThrow(/limit must be a whole number/);
  });

  it('describes every query, update and signal; an idle chat session says its last turn and how it ended', async () => {
    const session = env.agents.chatSession('chatty');
    await session.send('Add two and three');
    await session.send('Once more');
    type Handler = { name: string; description?: string };
    const metadata = await env.client.workflow.getHandle(session.workflowId).query<{
      currentDetails?: string;
      definition?: {
        queryDefinitions?: Handler[];
        signalDefinitions?: Handler[];
        updateDefinitions?: Handler[];
      };
    }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe('**Waiting for a message** · turn 2 completed after 2 steps');
    const {
      queryDefinitions = [],
      signalDefinitions = [],
      updateDefinitions = [],
    } = metadata.definition ?? {};
    const ours = [...queryDefinitions, ...signalDefinitions, ...updateDefinitions].filter(({ name }) =>
      name.startsWith('toolkit.'),
    );
    expect(ours.map(({ name }) => name).sort()).toEqual([
      'toolkit.approve',
      'toolkit.authorizationCompleted',
      'toolkit.cancel',
      'toolkit.deliver',
      'toolkit.deliverSignal',
      'toolkit.events',
      'toolkit.pendingApprovals',
      'toolkit.pendingAuthorizations',
      'toolkit.pendingToolCalls',
      'toolkit.reject',
      'toolkit.send',
      'toolkit.sessionState',
      'toolkit.subRuns',
      'toolkit.textDelta',
      'toolkit.toolResult',
      'toolkit.waitForEvents',
    ]);
    expect(ours.filter(({ description }) => !description?.trim()).map(({ name }) => name)).toEqual([]);
  });
});

/** Our search attributes on a namespace and their types, as the operator service lists them. */
async function ourSearchAttributes(
  connection: Connection,
  namespace: string,
): Promise<Record<string, string>> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  return Object.fromEntries(
    Object.entries(customAttributes ?? {})
      .filter(([name]) => name.startsWith('Toolkit'))
      .map(([name, type]) => [name, type === KEYWORD ? 'Keyword' : String(type)]),
  );
}

describe('a cluster without the search attributes', () => {
  it('`toolkit-agent setup` registers both on a fresh namespace, and is safe to run again', async () => {
    const address = inject('temporalAddress');
    const namespace = `setup-${randomUUID().slice(0, 8)}`;
    await run(cli, ['operator', 'namespace', 'create', '--address', address, '--namespace', namespace]);
    const connection = await Connection.connect({ address });
    try {
      expect(await ourSearchAttributes(connection, namespace)).toEqual({});
      const args = ['setup', '--address', address, '--namespace', namespace, '--json'];
      const first = await runCli(args);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({
        namespace,
        added: ['ToolkitAgent', 'ToolkitTenant'],
        present: [],
      });
      expect(await ourSearchAttributes(connection, namespace)).toEqual({
        ToolkitAgent: 'Keyword',
        ToolkitTenant: 'Keyword',
      });
      const again = await runCli(args);
      expect(JSON.parse(again.stdout)).toMatchObject({
        added: [],
        present: ['ToolkitAgent', 'ToolkitTenant'],
      });
    } finally {
      await connection.close();
    }
  });

  let cli: string;
  beforeAll(async () => {
    cli = (await findTemporalCli({ install: false }))!.path;
  });

  it('still runs, warns once, and lists agent and tenant from the memo', async () => {
    const address = inject('temporalAddress');
    const namespace = `no-attributes-${randomUUID().slice(0, 8)}`;
    const connection = await Connection.connect({ address });
    await run(cli, ['operator', 'namespace', 'create', '--address', address, '--namespace', namespace]);
    const nativeConnection = await NativeConnection.connect({ address });
    const taskQueue = `no-attributes-${randomUUID()}`;
    const worker = await createAgentWorker({
      connection: nativeConnection,
      namespace,
      taskQueue,
      agents: { support: { llm: addingModel(), tools: [new AddTool()] } },
      memoryStore: new InMemoryMemoryStore(),
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    const running = worker.run();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => {
      if ((warning as { code?: string }).code === 'TOOLKIT_AGENT_SEARCH_ATTRIBUTES') warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const agents = new AgentClient({ client: new Client({ connection, namespace }), taskQueue });
      // The namespace may take a moment to be usable everywhere.
      let first;
      for (let attempt = 0; ; attempt++) {
        try {
          first = await agents.run('support', 'Add two and three', { tenant: 'acme' });
          break;
        } catch (error) {
          if (attempt === 50 || !/Namespace .* not found/i.test(String(error))) throw error;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      expect(first.output).toBe('The sum is 5.');
      const second = await agents.run('support', 'Add two and three');
      expect(second.output).toBe('The sum is 5.');
      expect(await agents.chatSession('support', { tenant: 'acme' }).send('Add two and three')).toMatchObject(
        {
          output: 'The sum is 5.',
        },
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toContain('toolkit-agent setup');
      // The command the warning prints registers both attributes with the Temporal CLI.
      const printed = /(temporal operator search-attribute create[^\n]*Keyword)/.exec(
        warnings[0]!.message,
      )![1]!;
      expect(printed).toBe(CREATE_SEARCH_ATTRIBUTES_COMMAND);
      const [, ...args] = printed.split(' ');
      await run(cli, [...args, '--address', address, '--namespace', namespace]);
      expect(await ourSearchAttributes(connection, namespace)).toEqual({
        ToolkitAgent: 'Keyword',
        ToolkitTenant: 'Keyword',
      });

      const listed = await listUntil(agents, {}, 3);
      expect(listed.map((r) => [r.agent, r.tenant, r.kind])).toEqual(
        expect.arrayContaining([
          ['support', 'acme', 'run'],
          ['support', undefined, 'run'],
          ['support', 'acme', 'chat'],
        ]),
      );
    } finally {
      process.off('warning', onWarning);
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
    }
  });
});
