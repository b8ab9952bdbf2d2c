import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from '@temporalio/worker';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { builtinTools } from '../../src/tools/builtins/index.ts';
import { workflowSpanSinks } from '../../src/telemetry/workflow-span-sink.ts';
import { activitiesIn, collect, ONE_TOOL_CALL_RUN, startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

/** Its first call hangs until it is aborted (a tool overrunning its budget); later calls answer at once. */
class SlowFirstTool extends BaseConnectorTool {
  readonly name = 'lookup';
  readonly description = 'Looks something up';
  readonly parameters = z.object({ key: z.string() });
  readonly calls: Array<{ callId: string; aborted: boolean }> = [];

  constructor() {
    super({ fast: true });
  }

  async run(context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const entry = { callId: context.callId, aborted: false };
    this.calls.push(entry);
    if (this.calls.length === 1) {
      await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve()));
      entry.aborted = true;
      return { text: 'late local answer', metadata: {} };
    }
    return { text: `value of ${String(args.key)} on call ${this.calls.length}`, metadata: {} };
  }
}

/** Reads its credential and echoes it back (the output must reach the model and events redacted). */
class EchoSecretTool extends BaseConnectorTool {
  readonly name = 'echo_secret';
  readonly description = 'Echoes its token';
  readonly parameters = z.object({});
  protected override readonly defaultCredentialKey = 'echo';
  override readonly fast = true;

  async run(context: ToolContext): Promise<ToolOutput> {
    const { token } = await this.getCredential(context);
    return { text: `token is ${token}`, metadata: { token } };
  }
}

/** Fails with a plain error every time. */
class FailingFastTool extends BaseConnectorTool {
  readonly name = 'failing';
  readonly description = 'Always fails';
  readonly parameters = z.object({});
  override readonly fast = true;
  calls = 0;

  async run(): Promise<ToolOutput> {
    this.calls += 1;
    throw new Error('the lookup table is missing');
  }
}

describe('fast tools run without a round trip of their own', () => {
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it('runs a fast tool without a round trip of its own (it rides with the next model step), with the same events and stored result', async () => {
    const add = new AddTool();
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'add_1' }] },
      { text: 'The sum is 5.' },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [add], fastTools: ['add'] } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Add 2 and 3');
    const result = await handle.result();
    expect(result.output).toBe('The sum is 5.');
    expect(add.ran).toEqual([{ a: 2, b: 3 }]);
    expect(llm.calls[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'add_1',
      toolName: 'add',
      content: '5',
    });
    const events = await collect(handle.events());
    expect(events.map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    expect(events.find((e) => e.type === 'tool_completed')?.payload).toMatchObject({
      tool: 'add',
      call_id: 'add_1',
      output: '5',
      metadata: { sum: 5 },
    });
    const history = await handle.workflow.fetchHistory();
    const { scheduled, localMarkers } = activitiesIn(history.events ?? []);
    expect(scheduled).not.toContain('invokeTool');
    // The call rode with the answering model step: no local activity of its own, and the run was
    // resolved by the activity that took its first model step.
    expect(scheduled).toEqual(['openRun', 'callModel']);
    expect(localMarkers).toBe(0);
    // The history replays with the same workflow code (the patch marker and the carried call).
    await expect(
      Worker.runReplayHistory(
        {
          workflowBundle: { codePath: inject('workflowBundlePath') },
          sinks: workflowSpanSinks(undefined, () => undefined),
        },
        history,
        handle.workflowId,
      ),
    ).resolves.toBeUndefined();
  });

  it('runs a fast tool that overruns its budget again as a normal activity, storing one result', async () => {
    const lookup = new SlowFirstTool();
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'lookup', args: { key: 'k' }, id: 'lookup_1' }] },
      { text: 'found it' },
    ]);
    const env = await startTestWorker({
      agent: { llm, tools: [lookup], timeouts: { fastToolStartToCloseMs: 300 } },
    });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Look k up');
    expect((await handle.result()).output).toBe('found it');
    // The local attempt was aborted at its budget, and not retried locally; the activity answered.
    expect(lookup.calls).toEqual([
      { callId: 'lookup_1', aborted: true },
      { callId: 'lookup_1', aborted: false },
    ]);
    expect(llm.calls[1]!.messages.filter((m) => m.role === 'tool')).toEqual([
      { role: 'tool', toolCallId: 'lookup_1', toolName: 'lookup', content: 'value of k on call 2' },
    ]);
    const events = await collect(handle.events());
    expect(events.map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    const { scheduled } = activitiesIn((await handle.workflow.fetchHistory()).events ?? []);
    expect(scheduled.filter((name) => name === 'invokeTool')).toHaveLength(1);
    // The aborted local attempt never writes over the activity's result, even when it wakes later.
    await sleep(200);
    expect(await env.memoryStore.read(handle.workflowId)).toContainEqual({
      role: 'tool',
      toolCallId: 'lookup_1',
      toolName: 'lookup',
      content: 'value of k on call 2',
    });
  });

  it('runs a fast call that failed in a way a retry may cure again as an activity, with the tool retries', async () => {
    const failing = new FailingFastTool();
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'failing', args: {}, id: 'f_1' }] },
      { text: 'it failed' },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [failing], timeouts: { toolMaxAttempts: 2 } } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Try it');
    expect((await handle.result()).output).toBe('it failed');
    // One local attempt, then the activity's two.
    expect(failing.calls).toBe(3);
    expect(llm.calls[1]!.messages.at(-1)).toMatchObject({
      role: 'tool',
      toolCallId: 'f_1',
      isError: true,
      content: 'Error (Error): the lookup table is missing',
    });
    const failed = (await collect(handle.events())).filter((e) => e.type === 'tool_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.payload).toMatchObject({ call_id: 'f_1', error: 'the lookup table is missing' });
    const { scheduled } = activitiesIn((await handle.workflow.fetchHistory()).events ?? []);
    expect(scheduled.filter((name) => name === 'invokeTool')).toHaveLength(1);
  });

  it('tells the model a fast call’s refused arguments at once, without an activity', async () => {
    const add = new AddTool({ fast: true });
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 'two' }, id: 'add_1' }] },
      { text: 'bad call' },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [add] } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Add');
    expect((await handle.result()).output).toBe('bad call');
    expect(add.ran).toEqual([]);
    const answer = llm.calls[1]!.messages.at(-1);
    expect(answer).toMatchObject({ role: 'tool', toolCallId: 'add_1', isError: true });
    expect(String(answer?.content)).toMatch(/^Error \(ToolInputError\): Invalid arguments for add/);
    const { scheduled } = activitiesIn((await handle.workflow.fetchHistory()).events ?? []);
    expect(scheduled).not.toContain('invokeTool');
  });

  it('reads credentials inside the local activity and redacts what leaves it', async () => {
    const token = 'fast-secret-7f3a9c';
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'echo', type: 'bearer', token });
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'echo_secret', args: {}, id: 'e_1' }] },
      { text: 'done' },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [new EchoSecretTool()], credentialStore } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Echo');
    await handle.result();
    const stored = llm.calls[1]!.messages.at(-1);
    expect(stored).toMatchObject({ role: 'tool', toolCallId: 'e_1' });
    expect(JSON.stringify(stored)).not.toContain(token);
    const events = await collect(handle.events());
    expect(JSON.stringify(events)).not.toContain(token);
    expect(JSON.stringify(await handle.workflow.fetchHistory())).not.toContain(token);
  });

  it('waits for approval before a fast call, then runs it locally', async () => {
    const add = new AddTool({ needsApproval: true, fast: true });
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 1, b: 1 }, id: 'add_1' }] },
      { text: 'two' },
    ]);
    const env = await startTestWorker({ agent: { llm, tools: [add] } });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Add 1 and 1');
    for await (const event of handle.events()) if (event.type === 'approval_requested') break;
    expect(add.ran).toEqual([]);
    await handle.approve('add_1');
    expect((await handle.result()).output).toBe('two');
    expect(add.ran).toEqual([{ a: 1, b: 1 }]);
    const types = (await collect(handle.events())).map((e) => e.type);
    expect(types).toContain('approval_granted');
    const { scheduled } = activitiesIn((await handle.workflow.fetchHistory()).events ?? []);
    expect(scheduled).not.toContain('invokeTool');
  });

  it('runs the built-in file tools locally, and shell tools as activities', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fast-builtins-'));
    try {
      await writeFile(join(root, 'notes.txt'), 'fast notes');
      const tools = builtinTools({ projectRoot: root });
      const fast = tools.filter((tool) => tool.fast).map((tool) => tool.name);
      expect(fast.sort()).toEqual(
        [
          'edit_file',
          'glob_files',
          'grep_files',
          'plan_task',
          'read_file',
          'workspace_files',
          'write_file',
        ].sort(),
      );
      const readFile = tools.find((tool) => tool.name === 'read_file')!;
      const llm = new ScriptedModel([
        { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' }, id: 'r_1' }] },
        { text: 'read' },
      ]);
      const env = await startTestWorker({ agent: { llm, tools: [readFile] } });
      workers.push(env);
      const handle = await env.agents.start('agent', 'Read the notes');
      await handle.result();
      expect(String(llm.calls[1]!.messages.at(-1)?.content)).toContain('fast notes');
      const { scheduled } = activitiesIn((await handle.workflow.fetchHistory()).events ?? []);
      expect(scheduled).not.toContain('invokeTool');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('cancels a fast call in flight: the tool is told, the call is answered as cancelled, nothing late is stored', async () => {
    const lookup = new SlowFirstTool();
    const llm = new ScriptedModel([{ toolCalls: [{ name: 'lookup', args: { key: 'k' }, id: 'lookup_1' }] }]);
    const env = await startTestWorker({
      agent: { llm, tools: [lookup], timeouts: { fastToolStartToCloseMs: 60_000 } },
    });
    workers.push(env);
    const handle = await env.agents.start('agent', 'Look k up');
    for await (const event of handle.events()) if (event.type === 'tool_called') break;
    await expect.poll(() => lookup.calls.length).toBe(1);
    await handle.cancel('stop now');
    const result = await handle.result();
    expect(result.metadata.stop_reason).toBe('cancelled');
    expect(lookup.calls).toEqual([{ callId: 'lookup_1', aborted: true }]);
    await sleep(200);
    expect((await env.memoryStore.read(handle.workflowId)).at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'lookup_1',
      toolName: 'lookup',
      content: 'Cancelled: stop now',
      isError: true,
    });
  });

  it('refuses fastTools that name no tool of the agent, saying which it has', async () => {
    const llm = new ScriptedModel([{ text: 'never' }]);
    await expect(
      startTestWorker({ agent: { llm, tools: [new AddTool()], fastTools: ['github_search'] } }),
    ).rejects.toThrow(
      /fastTools names "github_search", which is not one of its tools .*add.*remove the name/,
    );
  });
});
