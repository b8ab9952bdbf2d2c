import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import type { AgentChatSession } from '../../src/client/chat-session.ts';
import { SESSION_STATE_QUERY } from '../../src/common/chat.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';

/** Answers every turn with what it saw: the turn's prompt and how many user messages came before. */
function echo(request: ModelRequest): ScriptedStep {
  const users = request.messages.filter((m) => m.role === 'user');
  return { text: `answer to "${users.at(-1)!.content}" after ${users.length - 1} earlier turn(s)` };
}
const echoModel = (turns: number, delayMs = 0) =>
  new ScriptedModel(
    Array.from({ length: turns }, () => (request: ModelRequest) => ({ ...echo(request), delayMs })),
  );

describe('chat sessions on the real server', () => {
  let env: TestWorker;
  const models = {
    chat: echoModel(40),
    slow: echoModel(4, 300),
    long: echoModel(110),
    idle: echoModel(4),
    handover: echoModel(40),
    late: echoModel(40),
  };

  beforeAll(async () => {
    env = await startTestWorker({
      chat: { llm: models.chat },
      slow: { llm: models.slow },
      long: { llm: models.long },
      idle: { llm: models.idle },
      handover: { llm: models.handover },
      late: { llm: models.late },
    });
  });
  afterAll(() => env?.stop());

  function session(
    agent: string,
    sessionId = randomUUID(),
    extra: Record<string, unknown> = {},
  ): AgentChatSession {
    return env.agents.chatSession(agent, { sessionId, memoryStore: env.memoryStore, ...extra });
  }

  it('keeps the context across turns, returns the history in order, and never re-sends old turns through history', async () => {
    const chat = session('chat');
    const first = await chat.send('TURN-ONE-TEXT');
    expect(first).toMatchObject({ turn: 1, output: 'answer to "TURN-ONE-TEXT" after 0 earlier turn(s)' });
    const handle = env.client.workflow.getHandle(chat.workflowId);
    const firstRunId = (await handle.describe()).runId;
    const firstRun = env.client.workflow.getHandle(chat.workflowId, firstRunId);
    await chat.send('second question');
    const countAfterTwo = occurrences(await historyText(firstRun), 'TURN-ONE-TEXT');
    const third = await chat.send('third question');
    expect(third).toMatchObject({ turn: 3, output: 'answer to "third question" after 2 earlier turn(s)' });
    for (let i = 4; i <= 10; i++) await chat.send(`question ${i}`);
    // Turn 1's text lives only in turn 1's own update (prompt) and result: no accumulated conversation.
    expect(occurrences(await historyText(firstRun), 'TURN-ONE-TEXT')).toBe(countAfterTwo);
    // Ten turns pass SESSION_RUN_EVENTS: the run the session continued as new into carries counters only.
    expect((await handle.describe()).runId).not.toBe(firstRunId);
    expect(occurrences(await historyText(handle), 'TURN-ONE-TEXT')).toBe(0);

    const history = await chat.history();
    expect(history.slice(0, 6)).toEqual([
      { role: 'user', content: 'TURN-ONE-TEXT' },
      { role: 'assistant', content: 'answer to "TURN-ONE-TEXT" after 0 earlier turn(s)' },
      { role: 'user', content: 'second question' },
      { role: 'assistant', content: 'answer to "second question" after 1 earlier turn(s)' },
      { role: 'user', content: 'third question' },
      { role: 'assistant', content: 'answer to "third question" after 2 earlier turn(s)' },
    ]);
    expect(history).toHaveLength(20);
  });

  it('streams a turn as its own events', async () => {
    const chat = session('chat');
    await chat.send('warm up');
    const events = await collect(chat.stream('streamed question'));
    expect(events.map((e) => e.type)).toEqual(['step_started', 'run_completed']);
    expect(events.at(-1)!.payload).toMatchObject({
      output: 'answer to "streamed question" after 1 earlier turn(s)',
    });
    expect(events.every((e) => typeof e.payload.turn_id === 'string')).toBe(true);
  });

  it('serializes two concurrent senders: both answered, one after the other', async () => {
    const id = randomUUID();
    const [a, b] = await Promise.all([
      session('slow', id).send('from client A'),
      session('slow', id).send('from client B'),
    ]);
    expect([a.turn, b.turn].sort()).toEqual([1, 2]);
    const second = a.turn === 2 ? a : b;
    expect(second.output).toMatch(/after 1 earlier turn\(s\)/);
    const history = await session('slow', id).history();
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('refuses an empty, oversized or out-of-order send with a clear message', async () => {
    const chat = session('chat');
    await expect(chat.send('   ')).rejects.toThrow(/prompt is empty/);
    await expect(chat.send('x'.repeat(200_001))).rejects.toThrow(/at most 200000/);
    expect((await chat.send('first', { expectedTurn: 1 })).turn).toBe(1);
    await expect(chat.send('stale view', { expectedTurn: 1 })).rejects.toThrow(
      /expected to be turn 1, but it would be turn 2/,
    );
    expect((await chat.send('second', { expectedTurn: 2 })).turn).toBe(2);
  });

  it('continues as new under load without losing a turn, a message or an event', async () => {
    const chat = session('long');
    const outputs: string[] = [];
    // About 15 turns fill a run's history up to the test server's suggestion (200 events): 100 turns
    // cross several continue-as-new hand-overs.
    for (let i = 1; i <= 100; i++) {
      const result = await chat.send(`q${i}`);
      expect(result.turn).toBe(i);
      outputs.push(result.output);
    }
    const runs = [];
    for await (const run of env.client.workflow.list({ query: `WorkflowId = '${chat.workflowId}'` }))
      runs.push(run);
    expect(runs.length).toBeGreaterThan(3);
    const history = await chat.history();
    expect(history).toHaveLength(200);
    for (const [i, output] of outputs.entries()) {
      expect(history.filter((m) => m.content === output)).toHaveLength(1);
      expect(output).toBe(`answer to "q${i + 1}" after ${i} earlier turn(s)`);
    }
    const events = await collect(chat.stream('after many runs'));
    expect(events[0]!.seq).toBeGreaterThan(200);
  }, 120_000);

  it('streams a turn to its end when the session continues as new before the reader has read it', async () => {
    const chat = session('handover');
    const workflow = env.client.workflow.getHandle(chat.workflowId);
    const currentRun = async () => (await workflow.describe()).runId;
    const state = () => workflow.query<{ busy: boolean }>(SESSION_STATE_QUERY);
    let continuedWhileReading = 0;
    // Each turn's reader stops after the first event until the turn is over (and the session, past
    // Temporal's suggestion, has continued as new); then it reads on. Until one turn crossed a new run.
    for (let turn = 1; turn <= 40 && continuedWhileReading === 0; turn++) {
      // The session starts with turn 1's send; from turn 2 on, the run the turn started in.
      const runBefore = turn === 1 ? undefined : await currentRun();
      const reader = chat.stream(`q${turn}`)[Symbol.asyncIterator]();
      const first = await reader.next();
      await until(async () => !(await state()).busy);
      if (runBefore !== undefined) {
        await until(async () => (await currentRun()) !== runBefore, 500).catch(() => undefined);
        if ((await currentRun()) !== runBefore) continuedWhileReading += 1;
      }
      const rest: AgentEvent[] = [];
      for (let next = await reader.next(); !next.done; next = await reader.next()) rest.push(next.value);
      expect(first.value).toMatchObject({ type: 'step_started' });
      expect(rest.at(-1)?.type).toBe('run_completed');
      expect(rest.at(-1)?.payload.output).toBe(`answer to "q${turn}" after ${turn - 1} earlier turn(s)`);
    }
    expect(continuedWhileReading).toBe(1);
  }, 120_000);

  it('ends a streamed turn when the session continues as new before the reader has started reading', async () => {
    // The reader's first call (describe: which run to read) waits until the turn is over and the
    // session, past Temporal's suggestion, has continued as new: it then reads a run without the turn.
    let hold: (() => Promise<void>) | undefined;
    const client = new Client({
      connection: env.client.connection,
      interceptors: {
        workflow: [
          {
            async describe(input, next) {
              await hold?.();
              return next(input);
            },
          },
        ],
      },
    });
    const chat = new AgentClient({ client, taskQueue: env.taskQueue }).chatSession('late', {
      memoryStore: env.memoryStore,
    });
    const workflow = env.client.workflow.getHandle(chat.workflowId);
    const currentRun = async () => (await workflow.describe()).runId;
    const busy = async () => (await workflow.query<{ busy: boolean }>(SESSION_STATE_QUERY)).busy;
    let crossed = 0;
    for (let turn = 1; turn <= 40 && crossed === 0; turn++) {
      const runBefore = turn === 1 ? undefined : await currentRun();
      hold = async () => {
        hold = undefined;
        await until(async () => !(await busy()));
        if (runBefore !== undefined)
          await until(async () => (await currentRun()) !== runBefore, 500).catch(() => undefined);
      };
      const events = await collect(chat.stream(`q${turn}`));
      if (runBefore !== undefined && (await currentRun()) !== runBefore) crossed += 1;
      expect(events.at(-1)).toMatchObject({
        type: 'run_completed',
        payload: { output: `answer to "q${turn}" after ${turn - 1} earlier turn(s)` },
      });
    }
    expect(crossed).toBe(1);
  }, 120_000);

  it('ends when idle and resumes from its stored history on the next send', async () => {
    const chat = session('idle', randomUUID(), { idleTimeoutMs: 500 });
    await chat.send('before the pause');
    expect(await env.client.workflow.getHandle(chat.workflowId).result()).toMatchObject({ turns: 1 });
    const resumed = await chat.send('after the pause');
    expect(resumed).toMatchObject({ turn: 2, output: 'answer to "after the pause" after 1 earlier turn(s)' });
  });
});

/** Resolves once `check` answers true, asking every 50 ms; rejects after `timeoutMs`. */
async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Not so within ${timeoutMs} ms.`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}
