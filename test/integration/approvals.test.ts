import { afterAll, describe, expect, inject, it } from 'vitest';
import { Agent } from '../../src/agent/agent.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ControlRefusedError } from '../../src/errors.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { firstEvent, startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

describe('tool approval', () => {
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it('a rejected call reaches the model as declined and the tool never runs; decisions are validated', async () => {
    const add = new AddTool({ needsApproval: true });
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 }, id: 'add_1' }] },
      // Slow enough that the run is still going when the decided call is asked about again.
      { text: 'I was not allowed to add.', delayMs: 5_000 },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [add] } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Add 1 and 2');
    const requested = await firstEvent(handle.events(), 'approval_requested');
    expect(requested.payload).toMatchObject({ call_id: 'add_1', tool: 'add', args: { a: 1, b: 2 } });
    expect(await handle.pendingApprovals()).toEqual([
      expect.objectContaining({ call_id: 'add_1', tool: 'add', args: { a: 1, b: 2 } }),
    ]);

    await expect(handle.approve('nope')).rejects.toThrow(
      /No tool call "nope" is waiting for approval in this run\. Waiting: add_1\./,
    );
    await expect(handle.reject('add_1', '  ')).rejects.toThrow(/needs a reason/);
    await handle.reject('add_1', 'adding is not allowed today');
    await expect(handle.approve('add_1')).rejects.toThrow(ControlRefusedError);
    await expect(handle.approve('add_1')).rejects.toThrow(/already rejected; a decision cannot be changed/);

    const result = await handle.result();
    expect(result.output).toBe('I was not allowed to add.');
    expect(add.ran).toEqual([]);
    expect(llm.calls[1]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      toolCallId: 'add_1',
      content: 'declined: adding is not allowed today',
    });
    const types: string[] = [];
    for await (const event of handle.events()) types.push(event.type);
    expect(types).toEqual([
      'run_started',
      'step_started',
      'approval_requested',
      'approval_rejected',
      'step_started',
      'run_completed',
    ]);
    // Deciding on a finished run is refused too.
    await expect(handle.approve('add_1')).rejects.toThrow(/No run is running|already ended/);
  });

  it('an agent lists the tools that need approval; a timeout declines; approval runs the tool once', async () => {
    const add = new AddTool();
    const script = () =>
      new ScriptedModel([
        { toolCalls: [{ name: 'add', args: { a: 2, b: 2 }, id: 'first' }] },
        { toolCalls: [{ name: 'add', args: { a: 3, b: 3 }, id: 'second' }] },
        { text: 'done' },
      ]);
    const hasty = script();
    // `hasty` declines after 1 s; `patient` waits longer than any test takes, so a decision is never late.
    const env = await startTestWorker({
      hasty: { llm: hasty, tools: [add], approval: { tools: ['add'], timeoutMs: 1000 } },
      patient: { llm: script(), tools: [add], approval: { tools: ['add'], timeoutMs: 10 * 60_000 } },
    });
    workers.push(env);
    /** Runs `agent`, deciding each call as `decide` says, and returns the approval events. */
    const approvals = async (agent: string, decide: Record<string, 'approve' | 'reject'>) => {
      const handle = await env.agents.start(agent, 'Add twice', { maxIterations: 3 });
      const seen: string[] = [];
      for await (const event of handle.events()) {
        if (!event.type.startsWith('approval_')) continue;
        const callId = String(event.payload.call_id);
        seen.push(`${event.type} ${callId}`);
        if (event.type !== 'approval_requested') continue;
        if (decide[callId] === 'approve') await handle.approve(callId, { note: 'fine by me' });
        if (decide[callId] === 'reject') await handle.reject(callId, 'not this one');
      }
      expect((await handle.result()).output).toBe('done');
      return seen;
    };
    // Nobody decides: each call is declined when its wait ends.
    expect(await approvals('hasty', {})).toEqual([
      'approval_requested first',
      'approval_rejected first',
      'approval_requested second',
      'approval_rejected second',
    ]);
    expect(hasty.calls[1]!.messages.at(-1)).toMatchObject({ content: 'declined: no decision within 1 s' });
    expect(add.ran).toEqual([]);
    expect(await approvals('patient', { first: 'reject', second: 'approve' })).toEqual([
      'approval_requested first',
      'approval_rejected first',
      'approval_requested second',
      'approval_granted second',
    ]);
    expect(add.ran).toEqual([{ a: 3, b: 3 }]);
  });

  it('a needsApproval function decides per call, on the worker', async () => {
    const add = new AddTool({ needsApproval: (args) => Number(args.a) > 100 });
    const llm = new ScriptedModel([
      {
        toolCalls: [
          { name: 'add', args: { a: 1, b: 1 }, id: 'small' },
          { name: 'add', args: { a: 500, b: 1 }, id: 'large' },
        ],
      },
      { text: 'ok' },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [add] } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Add');
    await firstEvent(handle.events(), 'approval_requested');
    expect((await handle.pendingApprovals()).map((p) => p.call_id)).toEqual(['large']);
    await handle.approve('large');
    await handle.result();
    expect(add.ran).toEqual([
      { a: 1, b: 1 },
      { a: 500, b: 1 },
    ]);
  });

  it('works from the Agent facade: approve and cancel through agent.startRun', async () => {
    const add = new AddTool();
    const agent = new Agent({
      llm: new ScriptedModel([
        { toolCalls: [{ name: 'add', args: { a: 20, b: 22 }, id: 'add_1' }] },
        { text: 'It is 42.' },
        { text: 'Thinking for a long time...', delayMs: 60_000 },
      ]),
      tools: [add],
      approval: { tools: ['add'] },
      memoryStore: new InMemoryMemoryStore(),
      temporal: { address: inject('temporalAddress'), taskQueue: `approval-facade-${Date.now()}` },
    });
    try {
      const run = await agent.startRun('Add 20 and 22', { timeoutMs: 60_000 });
      await firstEvent(run.events(), 'approval_requested');
      await run.approve('add_1', { note: 'go' });
      expect((await run.result()).output).toBe('It is 42.');
      expect(add.ran).toEqual([{ a: 20, b: 22 }]);

      const slow = await agent.startRun('Think hard');
      await firstEvent(slow.events(), 'step_started');
      await slow.cancel('enough');
      expect((await slow.result()).metadata.stop_reason).toBe('cancelled');
    } finally {
      await agent.close();
    }
  });

  it("a chat session decides its turn's calls, also after it has continued as new", async () => {
    const add = new AddTool({ needsApproval: true });
    const answer = (request: ModelRequest) => {
      const last = request.messages.at(-1)!;
      if (last.role === 'user' && last.content === 'please add') {
        return { toolCalls: [{ name: 'add', args: { a: 1, b: 1 }, id: `add_${request.messages.length}` }] };
      }
      return { text: last.role === 'tool' ? `result: ${last.content}` : 'ok' };
    };
    const env = await startTestWorker({
      chatty: { llm: new ScriptedModel(Array.from({ length: 200 }, () => answer)), tools: [add] },
    });
    workers.push(env);
    const chat = env.agents.chatSession('chatty');
    await chat.send('hello');
    const workflow = env.client.workflow.getHandle(chat.workflowId);
    const firstRun = (await workflow.describe()).runId;
    // Quick turns until Temporal has continued the session as new (the test server suggests it at 200 events).
    for (let i = 0; i < 100 && (await workflow.describe()).runId === firstRun; i++)
      await chat.send(`turn ${i}`);
    expect((await workflow.describe()).runId).not.toBe(firstRun);

    const turn = chat.send('please add');
    let pending = await chat.pendingApprovals();
    while (pending.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      pending = await chat.pendingApprovals();
    }
    expect(pending).toMatchObject([{ tool: 'add', args: { a: 1, b: 1 } }]);
    await expect(chat.approve('unknown')).rejects.toThrow(/No tool call "unknown" is waiting/);
    await chat.approve(pending[0]!.call_id);
    expect((await turn).output).toBe('result: 2');
    expect(add.ran).toEqual([{ a: 1, b: 1 }]);
    await expect(chat.approve(pending[0]!.call_id)).rejects.toThrow(/No turn is running/);
  }, 120_000);
});
