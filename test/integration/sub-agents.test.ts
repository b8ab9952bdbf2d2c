import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import { findTemporalCli } from '../../src/embedded/temporal-cli.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { collect, startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const run = promisify(execFile);
const usage = (n: number) => ({ input_tokens: n, output_tokens: n, total_tokens: 2 * n });

/** The task a sub-agent's model was given: its prompt, the conversation's first user message. */
function taskOf(request: ModelRequest): string {
  const user = request.messages.find((m) => m.role === 'user');
  return user?.content ?? '';
}

describe('sub-agents: agents as tools, run as child workflows', () => {
  let cli: string;
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
    const env = await startTestWorker({
      triage: {
        llm: triage,
        subAgents: { billing: 'billing', tech: { agent: 'tech', description: 'Answers technical questions' } },
      },
      billing: { llm: billing },
      tech: { llm: tech, tools: [add] },
    });
    workers.push(env);

    const handle = await env.agents.start('triage', 'Two questions for you');
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
        expect.objectContaining({ agent: 'tech', workflow_id: ids.tech, stop_reason: 'completed', tool_calls: 1 }),
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
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export type { ScriptedStep };
