import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentDefinition } from '../../src/agent/definition.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { findTemporalCli } from '../../src/embedded/temporal-cli.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { z } from 'zod';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { eventStreamResponse } from '../../src/client/event-stream-response.ts';
import { runCli } from '../support/cli.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool, TokenTool } from './tools.ts';

const CANARY = 'sk-canary-sub-4b1e9d27';

/** Waits until its signal fires (or a minute passes), recording that it started and was aborted. */
class SlowTool extends BaseConnectorTool {
  readonly name = 'slow';
  readonly description = 'A long job';
  readonly parameters = z.object({});
  aborted = false;
  #started: (() => void) | undefined;
  readonly started = new Promise<void>((resolve) => (this.#started = resolve));
  async run(context: ToolContext): Promise<ToolOutput> {
    this.#started?.();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 60_000);
      context.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        this.aborted = true;
        resolve();
      });
    });
    return { text: 'finished', metadata: {} };
  }
}

const run = promisify(execFile);
const usage = (n: number) => ({ input_tokens: n, output_tokens: n, total_tokens: 2 * n });

/** The task a sub-agent's model was given: its prompt, the conversation's first user message. */
function taskOf(request: ModelRequest): string {
  const user = request.messages.find((m) => m.role === 'user');
  return user?.content ?? '';
}

describe('sub-agents: agents as tools, run as child workflows', () => {
  let cli: string;
  let parentId = '';
  let env: TestWorker;
  const workers: TestWorker[] = [];
  beforeAll(async () => {
    const found = await findTemporalCli({ install: false });
    if (!found) throw new Error('The temporal CLI is not installed: run `npm run temporal:ensure`.');
    cli = found.path;
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it('runs two sub-agents of one step as two child workflows, pairs their answers, adds their usage', async () => {
    const triage = new ScriptedModel([
      {
        text: 'Asking both teams.',
        toolCalls: [
          { name: 'agent_billing', args: { task: 'Why was invoice 7 charged twice?' }, id: 'b1' },
          { name: 'agent_tech', args: { task: 'Is the API up?' }, id: 't1' },
        ],
        usage: usage(10),
      },
      { text: 'Billing: refunded. Tech: up.', usage: usage(20) },
    ]);
    const specialist = (answer: string, tokens: number): ScriptedModel =>
      new ScriptedModel([(request) => ({ text: `${answer} (${taskOf(request)})`, usage: usage(tokens) })]);
    const billing = specialist('A duplicate charge, refunded', 3);
    const tech = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }], usage: usage(4) },
      { text: 'The API is up', usage: usage(5) },
    ]);
    const add = new AddTool();
    env = await startTestWorker({
      triage: {
        llm: triage,
        subAgents: {
          billing: 'billing',
          tech: { agent: 'tech', description: 'Answers technical questions' },
        },
      },
      billing: { llm: billing },
      tech: { llm: tech, tools: [add] },
    });
    workers.push(env);

    const handle = await env.agents.start('triage', 'Two questions for you');
    parentId = handle.workflowId;
    const events = await collect(handle.events());
    const result = await handle.result();

    expect(result.output).toBe('Billing: refunded. Tech: up.');
    const ids = { billing: `${handle.workflowId}/b1`, tech: `${handle.workflowId}/t1` };
    // The parent's usage is its own plus its children's; each child is listed.
    expect(result.metadata.usage.total_tokens).toBe(20 + 40 + 6 + 8 + 10);
    expect(result.metadata.tool_calls).toBe(3);
    expect(result.metadata.sub_runs).toEqual(
      expect.arrayContaining([
        {
          name: 'billing',
          agent: 'billing',
          workflow_id: ids.billing,
          call_id: 'b1',
          stop_reason: 'completed',
          usage: usage(3),
          tool_calls: 0,
        },
        expect.objectContaining({
          agent: 'tech',
          workflow_id: ids.tech,
          stop_reason: 'completed',
          tool_calls: 1,
        }),
      ]),
    );
    // Each answer is the result of its own call, in the parent's conversation.
    const stored = await env.memoryStore.read(handle.workflowId);
    expect(stored.filter((m) => m.role === 'tool')).toEqual([
      {
        role: 'tool',
        toolCallId: 'b1',
        toolName: 'agent_billing',
        content: 'A duplicate charge, refunded (Why was invoice 7 charged twice?)',
      },
      { role: 'tool', toolCallId: 't1', toolName: 'agent_tech', content: 'The API is up' },
    ]);
    // The children's conversations are their own: the parent's prompt is not in them.
    const child = await env.memoryStore.read(ids.tech);
    expect(JSON.stringify(child)).not.toContain('Two questions for you');
    expect(triage.calls[0]!.tools.map((t) => t.function.name)).toEqual(['agent_billing', 'agent_tech']);

    // Both children ran in parallel, as child workflows whose parent Temporal shows.
    for (const id of Object.values(ids)) {
      const { stdout } = await run(cli, [
        'workflow',
        'describe',
        '--address',
        inject('temporalAddress'),
        '--workflow-id',
        id,
      ]);
      expect(stdout).toMatch(new RegExp(`ParentWorkflowId\\s+${escape(handle.workflowId)}\\n`));
      expect(stdout).toMatch(/for triage/);
    }

    // One stream: the children's events are in the parent's, tagged, between each call and its result.
    const techEvents = events.filter((e) => e.payload.sub_run === ids.tech);
    expect(techEvents.map((e) => e.type)).toEqual([
      'run_started',
      'step_started',
      'tool_called',
      'tool_completed',
      'step_started',
      'run_completed',
    ]);
    expect(techEvents[0]!.payload).toMatchObject({ agent: 'tech', depth: 1 });
    const at = (e: AgentEvent) => events.indexOf(e);
    const techResult = events.find((e) => e.type === 'tool_completed' && e.payload.call_id === 't1')!;
    expect(at(techEvents.at(-1)!)).toBeLessThan(at(techResult));
    expect(events.at(-1)).toMatchObject({ type: 'run_completed' });
    expect(events.at(-1)!.payload.sub_run).toBeUndefined();

    // Server-Sent Events: the children's events too, each with an id that increases; a browser
    // reconnecting with any of them gets the rest exactly (no event twice, none missed).
    const messagesOf = async (lastEventId?: string) =>
      (await eventStreamResponse(handle, { lastEventId }).text())
        .split('\n\n')
        .filter((m) => m.includes('data: {"seq"'));
    const messages = await messagesOf();
    expect(messages.length).toBe(events.length);
    const childMessages = messages.filter((m) => m.includes(`"sub_run":"${ids.tech}"`));
    expect(childMessages).toHaveLength(techEvents.length);
    const sseIds = messages.map((m) => /^id: ([\d/]+)\n/.exec(m)![1]!);
    expect(sseIds).toEqual(events.map((e) => e.cursor));
    const key = (id: string) =>
      id
        .split('/')
        .map((seq) => seq.padStart(6, '0'))
        .join('/');
    for (let i = 1; i < sseIds.length; i++) expect(key(sseIds[i]!) > key(sseIds[i - 1]!)).toBe(true);
    expect(new Set(sseIds).size).toBe(sseIds.length);
    expect(sseIds.some((id) => id.includes('/'))).toBe(true);
    for (const [i, id] of sseIds.entries()) {
      expect(await messagesOf(id)).toEqual(messages.slice(i + 1));
    }
    expect(messages.at(-1)).toMatch(/^id: \d+\ndata: \{.*"type":"run_completed"/);
  });

  it('lists only top-level runs with topLevel, and `runs show` prints the tree of sub-agent runs', async () => {
    const ids = [`${parentId}/b1`, `${parentId}/t1`];
    // Visibility is eventually consistent: ask until the children are listed.
    let all: string[] = [];
    for (let i = 0; i < 50 && all.length < 3; i++) {
      all = (await env.agents.list()).map((run) => run.workflowId);
      if (all.length < 3) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(all.sort()).toEqual([parentId, ...ids].sort());
    const listed = await env.agents.list();
    expect(listed.find((run) => run.workflowId === ids[0])?.parentWorkflowId).toBe(parentId);
    expect((await env.agents.list({ topLevel: true })).map((run) => run.workflowId)).toEqual([parentId]);

    const cliEnv = { TEMPORAL_ADDRESS: inject('temporalAddress') };
    const shown = await runCli(['runs', 'show', parentId], { env: cliEnv });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(
      `sub-runs:\n  ├─ billing  ${ids[0]}  completed\n  └─ tech  ${ids[1]}  completed\n`,
    );
    const json = await runCli(['runs', 'show', parentId, '--json'], { env: cliEnv });
    expect(JSON.parse(json.stdout)).toMatchObject({
      sub_runs: [
        { workflowId: ids[0], agent: 'billing', status: 'completed', children: [] },
        { workflowId: ids[1], agent: 'tech', status: 'completed', children: [] },
      ],
    });
  });
});

describe('sub-agents: failures, limits, control and handoffs', () => {
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it('gives the model an error result for a failed child, a structured child answers in JSON, depth is capped', async () => {
    const parent = new ScriptedModel([
      {
        toolCalls: [
          { name: 'agent_ghost', args: { task: 'Boo' }, id: 'g1' },
          { name: 'agent_typed', args: { task: 'Classify this' }, id: 'y1' },
          { name: 'agent_mid', args: { task: 'Go deeper' }, id: 'm1' },
        ],
      },
      { text: 'Done anyway.' },
    ]);
    const mid = new ScriptedModel([
      { toolCalls: [{ name: 'agent_leaf', args: { task: 'Even deeper' }, id: 'l1' }] },
      { text: 'I did it myself.' },
    ]);
    const env = await startTestWorker({
      parent: {
        llm: parent,
        maxSubAgentDepth: 1,
        subAgents: {
          ghost: 'nobody-serves-this',
          typed: {
            definition: {
              llm: new ScriptedModel([{ object: { priority: 'high' } }]),
              output: z.object({ priority: z.enum(['low', 'high']) }),
            },
          },
          mid: 'mid',
        },
      },
      mid: { llm: mid, subAgents: { leaf: { definition: { llm: new ScriptedModel([]) } } } },
    });
    workers.push(env);
    const handle = await env.agents.start('parent', 'Try everything');
    const result = await handle.result();
    expect(result.output).toBe('Done anyway.');
    const results = (await env.memoryStore.read(handle.workflowId)).filter((m) => m.role === 'tool');
    expect(results[0]).toMatchObject({ toolCallId: 'g1', isError: true });
    expect(results[0]!.content).toMatch(/^Error: The ghost agent failed: .*nobody-serves-this/);
    expect(results[1]).toEqual({
      role: 'tool',
      toolCallId: 'y1',
      toolName: 'agent_typed',
      content: '{"priority":"high"}',
    });
    expect(results[2]).toMatchObject({ toolCallId: 'm1', content: 'I did it myself.' });
    const leaf = (await env.memoryStore.read(`${handle.workflowId}/m1`)).find((m) => m.role === 'tool');
    expect(leaf).toMatchObject({ toolCallId: 'l1', isError: true });
    expect(leaf!.content).toMatch(/nest at most 1 deep/);
    expect(result.metadata.sub_runs?.map((r) => [r.name, r.stop_reason])).toEqual(
      expect.arrayContaining([
        ['ghost', 'failed'],
        ['typed', 'completed'],
        ['mid', 'completed'],
      ]),
    );
  });

  it('cancels the children with the parent: the child tool sees it, the parent says so', async () => {
    const slow = new SlowTool();
    const env = await startTestWorker({
      boss: {
        llm: new ScriptedModel([{ toolCalls: [{ name: 'agent_worker', args: { task: 'Work' }, id: 'w1' }] }]),
        subAgents: { worker: 'worker' },
      },
      worker: { llm: new ScriptedModel([{ toolCalls: [{ name: 'slow', args: {} }] }]), tools: [slow] },
    });
    workers.push(env);
    const handle = await env.agents.start('boss', 'Start the work');
    const reading = collect(handle.events());
    await slow.started;
    const cancelledAt = Date.now();
    await handle.cancel('stop everything');
    const result = await handle.result();
    const events = await reading;
    expect(slow.aborted).toBe(true);
    // Not after the minute the slow tool would take (with room for a slow machine).
    expect(Date.now() - cancelledAt).toBeLessThan(30_000);
    expect(result.metadata.stop_reason).toBe('cancelled');
    expect(result.metadata.sub_runs).toEqual([
      expect.objectContaining({
        agent: 'worker',
        workflow_id: `${handle.workflowId}/w1`,
        stop_reason: 'cancelled',
      }),
    ]);
    const child = await env.agents.getHandle(`${handle.workflowId}/w1`).result();
    expect(child.metadata.stop_reason).toBe('cancelled');
    expect(events.filter((e) => e.type === 'run_cancelled').map((e) => e.payload.sub_run)).toEqual([
      `${handle.workflowId}/w1`,
      undefined,
    ]);
    const stored = await env.memoryStore.read(handle.workflowId);
    expect(stored.at(-1)).toMatchObject({ toolCallId: 'w1', content: 'Cancelled: stop everything' });
  });

  it("stops a child with `budget` when it would overspend what is left of the parent's tokens", async () => {
    const env = await startTestWorker({
      lead: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'agent_spender', args: { task: 'Spend' }, id: 's1' }], usage: usage(15) },
          { text: 'Stopped the spender.', usage: usage(10) },
        ]),
        limits: { maxTotalTokens: 100 },
        subAgents: { spender: 'spender' },
      },
      spender: {
        llm: new ScriptedModel([
          { text: 'Adding.', toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }], usage: usage(20) },
          { text: 'never reached', usage: usage(20) },
        ]),
        tools: [new AddTool()],
      },
    });
    workers.push(env);
    const handle = await env.agents.start('lead', 'Spend carefully');
    const result = await handle.result();
    const child = result.metadata.sub_runs![0]!;
    expect(child).toMatchObject({ stop_reason: 'budget', usage: usage(20) });
    const childResult = await env.agents.getHandle(child.workflow_id).result();
    expect(childResult.metadata.stop_reason).toBe('budget');
    // The parent's usage counts the child's; its own next step still fitted.
    expect(result.metadata.usage.total_tokens).toBe(30 + 40 + 20);
    const stored = await env.memoryStore.read(handle.workflowId);
    expect(stored.find((m) => m.role === 'tool')).toMatchObject({ isError: true });
    expect(stored.find((m) => m.role === 'tool')!.content).toMatch(/stopped early \(budget\)/);
  });

  it("shares what is left of the parent's budgets between the children of one step", async () => {
    /** Adds as long as its budget lets it: 20 tokens and one tool call a step. */
    const eager = (): AgentDefinition => ({
      llm: new ScriptedModel([
        { toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }], usage: usage(10) },
        { toolCalls: [{ name: 'add', args: { a: 2, b: 2 } }], usage: usage(10) },
        { text: 'done', usage: usage(10) },
      ]),
      tools: [new AddTool()],
    });
    const env = await startTestWorker({
      lead: {
        llm: new ScriptedModel([
          {
            toolCalls: [
              { name: 'agent_left', args: { task: 'Add' }, id: 'l1' },
              { name: 'agent_right', args: { task: 'Add' }, id: 'r1' },
            ],
            usage: usage(15),
          },
          { text: 'Both stopped.', usage: usage(10) },
        ]),
        // After the first step: 70 tokens and 2 tool calls left for the two children together.
        limits: { maxTotalTokens: 100, maxToolCalls: 4 },
        subAgents: { left: 'left', right: 'right' },
      },
      left: eager(),
      right: eager(),
    });
    workers.push(env);
    const result = await env.agents.run('lead', 'Add in parallel');
    const children = result.metadata.sub_runs!;
    expect(children).toHaveLength(2);
    const spent = children.reduce((sum, child) => sum + child.usage.total_tokens, 0);
    const calls = children.reduce((sum, child) => sum + child.tool_calls, 0);
    // Each alone would have run to its answer (60 tokens, 2 calls): together they would pass the parent's budget.
    expect(spent).toBeLessThanOrEqual(70);
    expect(calls).toBeLessThanOrEqual(2);
    expect(children.map((child) => child.stop_reason)).toEqual(['budget', 'budget']);
    expect(result.metadata.usage.total_tokens).toBeLessThanOrEqual(100);
    expect(result.metadata.tool_calls).toBeLessThanOrEqual(4);
  });

  it("surfaces a child's approval in the parent's pendingApprovals; approve() on the parent's handle resolves it", async () => {
    const add = new AddTool();
    const env = await startTestWorker({
      desk: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'agent_careful', args: { task: 'Add 2 and 3' }, id: 'c1' }] },
          { text: 'The careful agent says 5.' },
        ]),
        subAgents: { careful: 'careful' },
      },
      careful: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'add_1' }] },
          { text: '5' },
        ]),
        tools: [add],
        approval: { tools: ['add'] },
      },
    });
    workers.push(env);
    const handle = await env.agents.start('desk', 'Add carefully');
    let pending = await handle.pendingApprovals();
    for (let i = 0; i < 100 && pending.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      pending = await handle.pendingApprovals();
    }
    expect(pending).toEqual([
      expect.objectContaining({
        call_id: 'add_1',
        tool: 'add',
        agent: 'careful',
        sub_run: `${handle.workflowId}/c1`,
      }),
    ]);
    expect(add.ran).toEqual([]);
    await handle.approve('add_1', { note: 'fine' });
    const result = await handle.result();
    expect(add.ran).toEqual([{ a: 2, b: 3 }]);
    expect(result.output).toBe('The careful agent says 5.');
  });

  it('hands a chat session to billing: turn 1 is handed over, turn 2 is answered by billing', async () => {
    const triage = new ScriptedModel([
      { text: 'Let me transfer you.', toolCalls: [{ name: 'transfer_to_billing', args: {}, id: 'x1' }] },
    ]);
    const billing = new ScriptedModel([
      (request) => ({ text: `Billing here (${request.tools.map((t) => t.function.name).join(',')}).` }),
      { text: 'Your refund is on its way.' },
    ]);
    const env = await startTestWorker({
      triage: { llm: triage, systemPrompt: 'You are triage.', handoffs: ['billing'] },
      billing: { llm: billing, systemPrompt: 'You are billing.', tools: [new AddTool()] },
    });
    workers.push(env);
    const chat = env.agents.chatSession('triage', { memoryStore: env.memoryStore });
    const turn1 = await collect(chat.stream('My invoice is wrong'));
    const first = turn1.at(-1)!;
    expect(first.payload.output).toBe('Billing here (add).');
    const handoffs = turn1.filter((e) => e.type === 'handoff');
    expect(handoffs).toHaveLength(1);
    expect(handoffs[0]!.payload).toMatchObject({ from: 'triage', to: 'billing', call_id: 'x1' });
    const second = await chat.send('When do I get my money?');
    expect(second.output).toBe('Your refund is on its way.');
    triage.assertAllStepsUsed();
    billing.assertAllStepsUsed();
    // Billing's model saw its own instructions, and the conversation so far.
    expect(billing.calls[1]!.messages[0]).toEqual({ role: 'system', content: 'You are billing.' });
    const history = await chat.history();
    expect(history.filter((m) => m.role === 'assistant').map((m) => [m.agent, m.content])).toEqual([
      ['triage', 'Let me transfer you.'],
      ['billing', 'Billing here (add).'],
      ['billing', 'Your refund is on its way.'],
    ]);
  });

  it('hands a run over mid-step: the other calls are answered, the target gets its instructions and tools', async () => {
    const add = new AddTool();
    const front = new ScriptedModel([
      {
        toolCalls: [
          { name: 'add', args: { a: 1, b: 1 }, id: 'a1' },
          { name: 'transfer_to_math', args: { reason: 'sums' }, id: 'x1' },
          { name: 'transfer_to_math', args: {}, id: 'x2' },
        ],
      },
    ]);
    const math = new ScriptedModel([
      (request) => ({ text: `math: ${request.tools.map((t) => t.function.name).join(',')}` }),
    ]);
    const env = await startTestWorker({
      front: { llm: front, tools: [add], handoffs: ['math'] },
      math: { llm: math, systemPrompt: 'You are math.', tools: [new AddTool()] },
    });
    workers.push(env);
    const handle = await env.agents.start('front', 'What is 1 + 1?');
    const result = await handle.result();
    expect(result.output).toBe('math: add');
    expect(result.metadata).toMatchObject({ handoffs: ['math'], agent: 'math', iterations: 2 });
    const tools = (await env.memoryStore.read(handle.workflowId)).filter((m) => m.role === 'tool');
    expect(tools.map((m) => [m.toolCallId, m.content])).toEqual([
      ['a1', '2'],
      ['x1', 'Transferred from front to math: you answer from now on.\n\nYour instructions:\nYou are math.'],
      ['x2', 'Not transferred: the conversation is already being transferred to math.'],
    ]);
    expect(add.ran).toEqual([{ a: 1, b: 1 }]);
  });

  it('answers a transfer to an agent this worker does not serve with why, and the run goes on', async () => {
    const env = await startTestWorker({
      front: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'transfer_to_ghost', args: {}, id: 'x1' }] },
          { text: 'I will answer myself.' },
        ]),
        handoffs: ['ghost'],
      },
    });
    workers.push(env);
    const handle = await env.agents.start('front', 'Help');
    const result = await handle.result();
    expect(result.output).toBe('I will answer myself.');
    expect(result.metadata.handoffs).toBeUndefined();
    const answer = (await env.memoryStore.read(handle.workflowId)).find((m) => m.role === 'tool');
    expect(answer).toMatchObject({ toolCallId: 'x1', isError: true });
    expect(answer!.content).toMatch(/^Not transferred: No agent named "ghost"/);
  });

  it('lets a deep run plan steps for sub-agents and execute them in parallel', async () => {
    const lead = new ScriptedModel([
      {
        text: '1. agent_facts: find the facts. 2. agent_style: check the style. Steps 1 and 2 are independent.',
      },
      {
        toolCalls: [
          { name: 'agent_facts', args: { task: 'Find the facts' }, id: 'f1' },
          { name: 'agent_style', args: { task: 'Check the style' }, id: 's1' },
        ],
      },
      { text: 'Facts found, style checked.' },
    ]);
    const env = await startTestWorker({
      lead: {
        llm: lead,
        subAgents: {
          facts: { description: 'Finds facts', definition: { llm: new ScriptedModel([{ text: 'facts' }]) } },
          style: { description: 'Checks style', definition: { llm: new ScriptedModel([{ text: 'style' }]) } },
        },
      },
    });
    workers.push(env);
    const handle = await env.agents.start('lead', 'Write the report', { deep: {} });
    const events = await collect(handle.events());
    const result = await handle.result();
    expect(result.output).toBe('Facts found, style checked.');
    // The plan phase was told which sub-agents exist; the execute phase how to delegate.
    expect(lead.calls[0]!.messages[0]!.content).toMatch(
      /Sub-agents can carry out steps[\s\S]*- agent_facts: Finds facts/,
    );
    expect(lead.calls[1]!.messages[0]!.content).toMatch(
      /call the tools of independent steps in the same step/,
    );
    expect(result.metadata.sub_runs?.map((r) => r.agent).sort()).toEqual(['lead.facts', 'lead.style']);
    // Both children started before either finished: in parallel.
    const childStarts = events.filter((e) => e.type === 'tool_called' && e.payload.child_run);
    const firstResult = events.findIndex((e) => e.type === 'tool_completed' && e.payload.child_run);
    expect(childStarts).toHaveLength(2);
    expect(childStarts.every((e) => events.indexOf(e) < firstResult)).toBe(true);
    expect(childStarts.every((e) => e.payload.phase === 'execute')).toBe(true);
  });

  it("keeps a child tool's secret out of the parent's and the child's histories", async () => {
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'upstream', type: 'bearer', token: CANARY });
    const env = await startTestWorker({
      front: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'agent_keeper', args: { task: 'What is the token?' }, id: 'k1' }] },
          (request) => ({ text: `Keeper said: ${String(request.messages.at(-1)?.content)}` }),
        ]),
        subAgents: { keeper: 'keeper' },
      },
      keeper: {
        llm: new ScriptedModel([
          { toolCalls: [{ name: 'token', args: {} }] },
          (request) => ({ text: String(request.messages.at(-1)?.content) }),
        ]),
        tools: [new TokenTool()],
        credentialStore,
      },
    });
    workers.push(env);
    const handle = await env.agents.start('front', 'Ask the keeper');
    const events = await collect(handle.events());
    const result = await handle.result();
    expect(result.output).toContain('[REDACTED]');
    const child = env.client.workflow.getHandle(`${handle.workflowId}/k1`);
    for (const text of [
      await historyText(handle.workflow),
      await historyText(child),
      JSON.stringify(events),
    ]) {
      expect(text).toContain('keeper');
      expect(text).not.toContain(CANARY);
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export type { ScriptedStep };
