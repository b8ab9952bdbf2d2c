import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { SqliteMemoryStore } from '../../src/memory/sqlite.ts';
import { startNodeProcess, type NodeProcess } from './processes.ts';
import { APPROVED_TOOL_CALL_RUN } from './helpers.ts';

describe('a run survives its worker being killed', () => {
  let dir: string;
  let connection: Connection;
  const processes: NodeProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'durability-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A worker process in `mode` on a task queue of its own, polling; and a client for that queue. */
  async function firstWorker(mode: string) {
    const taskQueue = `durable-${randomUUID()}`;
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: taskQueue,
      MEMORY_DB: join(dir, 'memory.sqlite'),
      MARKER_FILE: join(dir, `marker-${taskQueue}.log`),
    };
    const first = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: mode });
    processes.push(first);
    await first.waitForLine(/^READY$/);
    const agents = new AgentClient({ client: new Client({ connection }), taskQueue });
    return { env, first, agents };
  }

  it('resumes on a new worker after SIGKILL, without running the completed tool again', async () => {
    const { env, first, agents } = await firstWorker('crash-first');
    const handle = await agents.start('durable', 'Leave a mark, then finish');
    const events: AgentEvent[] = [];
    const streaming = (async () => {
      for await (const event of handle.events()) events.push(event);
    })();

    // The tool has completed and the model is on its second step: kill the worker mid-run.
    await first.waitForLine(/^MODEL_STEP 2 /);
    first.child.kill('SIGKILL');
    await first.exited;
    expect(await readFile(env.MARKER_FILE, 'utf8')).toBe(`side effect pid=${first.child.pid}\n`);

    const second = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'crash-second' });
    processes.push(second);
    const result = await handle.result();
    await streaming;

    expect(result.output).toBe('finished after the restart');
    expect(result.metadata).toMatchObject({ stop_reason: 'completed', iterations: 2 });
    // The completed tool did not run again, and the new worker's model saw its result.
    expect(await readFile(env.MARKER_FILE, 'utf8')).toBe(`side effect pid=${first.child.pid}\n`);
    const resumedCall = JSON.parse(
      (await second.waitForLine(/^MODEL_STEP 1 /)).replace(/^MODEL_STEP 1 /, ''),
    ) as unknown[];
    expect(resumedCall.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'mark_1',
      toolName: 'mark',
      content: 'marked',
    });
    expect(events.filter((e) => e.type === 'tool_completed')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({
      type: 'run_completed',
      payload: { output: 'finished after the restart' },
    });
    second.child.kill('SIGTERM');
    await second.exited;
  });

  it('gives a structured run’s object once when the worker is killed while the model writes it', async () => {
    const { env, first, agents } = await firstWorker('output-crash-first');
    const handle = await agents.start('typed', 'Leave a mark, then triage');
    const events: AgentEvent[] = [];
    const streaming = (async () => {
      for await (const event of handle.events()) events.push(event);
    })();

    // The answering step has begun (its live text has reached the run): kill the worker.
    await first.waitForLine(/^MODEL_STEP 2 /);
    await expect.poll(() => events.some((e) => e.type === 'partial_output'), { timeout: 10_000 }).toBe(true);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startNodeProcess('test/fixtures/worker-process.ts', {
      ...env,
      MODE: 'output-crash-second',
    });
    processes.push(second);
    const result = await handle.result();
    await streaming;

    expect(result.output).toEqual({ priority: 'high', team: 'billing' });
    expect(result.metadata).toMatchObject({ stop_reason: 'completed', iterations: 2, output_repairs: 0 });
    expect(await readFile(env.MARKER_FILE, 'utf8')).toBe(`side effect pid=${first.child.pid}\n`);
    // The half-written answer was never taken for the result; the object arrives once.
    expect(events.find((e) => e.type === 'partial_output')?.payload.output).toEqual({ priority: 'hi' });
    const completed = events.filter((e) => e.type === 'run_completed');
    expect(completed).toHaveLength(1);
    expect(completed[0]!.payload.output).toEqual({ priority: 'high', team: 'billing' });
    expect(events.at(-1)!.type).toBe('run_completed');
    second.child.kill('SIGTERM');
    await second.exited;
  });

  it('waits, loses its worker, is approved from another process, and a new worker runs the tool once', async () => {
    const { env, first, agents } = await firstWorker('approval-first');
    const handle = await agents.start('careful', 'Leave a mark once someone approves');
    const events: AgentEvent[] = [];
    for await (const event of handle.events()) {
      events.push(event);
      if (event.type === 'approval_requested') break;
    }
    expect(await handle.pendingApprovals()).toMatchObject([{ call_id: 'mark_1', tool: 'mark' }]);
    first.child.kill('SIGKILL');
    await first.exited;

    // Another process decides while no worker runs; the update waits for the next worker.
    const approver = startNodeProcess('test/fixtures/approve-process.ts', {
      ...env,
      WORKFLOW_ID: handle.workflowId,
      CALL_ID: 'mark_1',
    });
    processes.push(approver);
    const second = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'approval-second' });
    processes.push(second);
    await approver.waitForLine(/^APPROVED$/);
    const result = await handle.result();

    expect(result.output).toBe('marked after approval');
    expect(await readFile(env.MARKER_FILE, 'utf8')).toBe(`approved pid=${second.child.pid}\n`);
    for await (const event of handle.events({ afterSeq: events.at(-1)!.seq })) events.push(event);
    expect(events.map((e) => e.type)).toEqual(APPROVED_TOOL_CALL_RUN);
    expect(events.find((e) => e.type === 'approval_granted')?.payload).toMatchObject({
      call_id: 'mark_1',
      note: 'approved from another process',
    });
    second.child.kill('SIGTERM');
    await second.exited;
  });
  it('keeps exactly one child per sub-agent call when the worker is SIGKILLed mid-child, each completed once', async () => {
    const { env, first, agents } = await firstWorker('subagents-first');
    const handle = await agents.start('triage', 'Split the work');
    await first.waitForLine(/^CHILD_MID a$/);
    await first.waitForLine(/^CHILD_MID b$/);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'subagents-second' });
    processes.push(second);
    const result = await handle.result();
    expect(result.output).toBe('both teams answered');
    const ids = [`${handle.workflowId}/a1`, `${handle.workflowId}/b1`];
    expect(result.metadata.sub_runs?.map((r) => r.workflow_id).sort()).toEqual(ids);
    // Exactly one child workflow per call (visibility is eventually consistent: ask until both are listed).
    const client = new Client({ connection });
    let children: string[] = [];
    for (let i = 0; i < 50; i++) {
      children = [];
      for await (const info of client.workflow.list({ query: `ParentWorkflowId = '${handle.workflowId}'` }))
        children.push(`${info.workflowId} ${info.status.name}`);
      if (children.length >= 2 && children.every((c) => c.endsWith('COMPLETED'))) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(children.sort()).toEqual(ids.map((id) => `${id} COMPLETED`));
    // Each child's tool ran once, and each child answered once.
    const marks = (await readFile(env.MARKER_FILE, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => l.split(' ')[0])
      .sort();
    expect(marks).toEqual(['a', 'b']);
    const stored = new SqliteMemoryStore({ path: env.MEMORY_DB });
    const results = (await stored.read(handle.workflowId)).filter((m) => m.role === 'tool');
    expect(results.map((m) => m.content)).toEqual(['a done', 'b done']);
    await stored.close();
  });

  it('repeats a fast tool call (a local activity) at most once, keyed, when the worker is SIGKILLed during it', async () => {
    const { env, first, agents } = await firstWorker('fast-crash-first');
    const handle = await agents.start('quick', 'Mark fast, then finish');
    const events: AgentEvent[] = [];
    const streaming = (async () => {
      for await (const event of handle.events()) events.push(event);
    })();

    // The fast tool has made its side effect and hangs inside the local activity: kill the worker.
    await first.waitForLine(/^FAST_TOOL_RAN$/);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'fast-crash-second' });
    processes.push(second);
    const result = await handle.result();
    await streaming;

    expect(result.output).toBe('marked fast');
    // Once on the killed worker, once more on the new one: the same call, by its id.
    expect(await readFile(env.MARKER_FILE, 'utf8')).toBe(
      `fast_1 pid=${first.child.pid}\nfast_1 pid=${second.child.pid}\n`,
    );
    expect(events.filter((e) => e.type === 'tool_called')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool_completed')).toHaveLength(1);
    // The call ran as a local activity: no activity task was scheduled for it.
    const history = await handle.workflow.fetchHistory();
    const scheduled = (history.events ?? []).flatMap((e) =>
      e.activityTaskScheduledEventAttributes
        ? [e.activityTaskScheduledEventAttributes.activityType?.name]
        : [],
    );
    expect(scheduled).not.toContain('invokeTool');
    second.child.kill('SIGTERM');
    await second.exited;
  });

  it('asks a model-based guardrail at most once more, and records its verdict once, when the worker is SIGKILLed during it', async () => {
    const { env, first, agents } = await firstWorker('guardrail-crash-first');
    const handle = await agents.start('guarded', 'What is the weather?');
    await first.waitForLine(/^CHECK_ASKED$/);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startNodeProcess('test/fixtures/worker-process.ts', {
      ...env,
      MODE: 'guardrail-crash-second',
    });
    processes.push(second);
    const result = await handle.result();
    expect(result.output).toBe('answered');
    // Once on the killed worker, once more on the new one.
    expect(await readFile(env.MARKER_FILE, 'utf8')).toBe(
      `asked pid=${first.child.pid}\nasked pid=${second.child.pid}\n`,
    );
    // One check in history, its verdict recorded once (the attempt that died left no event).
    const history = await handle.workflow.fetchHistory();
    const events = history.events ?? [];
    const scheduled = events.filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'checkGuardrail',
    );
    expect(scheduled).toHaveLength(1);
    expect(events.filter((e) => e.activityTaskCompletedEventAttributes)).toHaveLength(
      events.filter((e) => e.activityTaskScheduledEventAttributes).length,
    );
    second.child.kill('SIGTERM');
    await second.exited;
    expect(await readFile(env.MARKER_FILE, 'utf8')).toBe(
      `asked pid=${first.child.pid}\nasked pid=${second.child.pid}\n`,
    );
  });
});

describe('a chat session survives its worker being killed mid-turn', () => {
  let dir: string;
  let connection: Connection;
  const processes: NodeProcess[] = [];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chat-durability-'));
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    for (const p of processes) p.child.kill('SIGKILL');
    await connection?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('completes the interrupted turn on a new worker', async () => {
    const taskQueue = `chat-durable-${randomUUID()}`;
    const memoryDb = join(dir, 'memory.sqlite');
    const env = {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      WORKFLOW_BUNDLE: inject('workflowBundlePath'),
      TASK_QUEUE: taskQueue,
      MEMORY_DB: memoryDb,
      MARKER_FILE: join(dir, 'unused.log'),
    };
    const first = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'chat-crash-first' });
    processes.push(first);
    await first.waitForLine(/^READY$/);
    const memoryStore = new SqliteMemoryStore({ path: memoryDb });
    const session = new AgentClient({ client: new Client({ connection }), taskQueue }).chatSession('chatty', {
      memoryStore,
    });

    expect(await session.send('turn one')).toMatchObject({ turn: 1, output: 'first answer' });
    const pending = session.send('turn two');
    await first.waitForLine(/^MODEL_STEP 2 /);
    first.child.kill('SIGKILL');
    await first.exited;

    const second = startNodeProcess('test/fixtures/worker-process.ts', { ...env, MODE: 'chat-crash-second' });
    processes.push(second);
    expect(await pending).toMatchObject({ turn: 2, output: 'answered after the restart' });
    expect((await session.history()).map((m) => m.content)).toEqual([
      'turn one',
      'first answer',
      'turn two',
      'answered after the restart',
    ]);
    await memoryStore.close();
    second.child.kill('SIGTERM');
    await second.exited;
  });
});
