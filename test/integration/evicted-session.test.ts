import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { workflowSpanSinks } from '../../src/telemetry/workflow-span-sink.ts';
import { SESSION_RUN_EVENTS } from '../../src/workflows/chat-session.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

/** Answers every turn with its prompt and how many user messages came before. */
const echo = new ScriptedModel(
  Array.from({ length: 23 }, () => (request: ModelRequest) => {
    const users = request.messages.filter((m) => m.role === 'user');
    return { text: `${String(users.at(-1)!.content)} after ${users.length - 1}` };
  }),
);

describe('a chat session evicted from the workflow cache', () => {
  let env: TestWorker;
  // Two cached workflows (Temporal's least besides none) and three sessions taking turns: each
  // session's next message finds it evicted, so its workflow replays from its history.
  beforeAll(async () => {
    env = await startTestWorker({ chat: { llm: echo } }, { maxCachedWorkflows: 2 });
  });
  afterAll(() => env?.stop());

  it('answers its next message with the whole conversation, turn after turn', async () => {
    const sessions = ['a', 'b', 'c'].map((name) => ({
      name,
      chat: env.agents.chatSession('chat', {
        sessionId: `${name}-${randomUUID()}`,
        memoryStore: env.memoryStore,
      }),
    }));
    for (let turn = 1; turn <= 4; turn++) {
      for (const { name, chat } of sessions) {
        expect(await chat.send(`${name}${turn}`)).toMatchObject({
          turn,
          output: `${name}${turn} after ${turn - 1}`,
        });
      }
    }
    for (const { chat } of sessions) expect(await chat.history()).toHaveLength(8);
  });

  // The tests' server suggests continuing as new at 200 events: 11 plain turns (about 150) stay under it.
  it('continues as new once its run holds SESSION_RUN_EVENTS events, so a replay covers a few turns', async () => {
    const chat = env.agents.chatSession('chat', {
      sessionId: `long-${randomUUID()}`,
      memoryStore: env.memoryStore,
    });
    const session = env.client.workflow.getHandle(chat.workflowId);
    await chat.send('x1');
    const { runId: firstRun } = await session.describe();
    for (let turn = 2; turn <= 11; turn++) {
      expect(await chat.send(`x${turn}`)).toMatchObject({ turn, output: `x${turn} after ${turn - 1}` });
    }
    const first = await env.client.workflow.getHandle(chat.workflowId, firstRun).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
    expect(first.historyLength).toBeGreaterThanOrEqual(SESSION_RUN_EVENTS);
    expect(first.historyLength).toBeLessThan(SESSION_RUN_EVENTS + 30);
    // The run that continued as new replays (a worker that evicted it would rebuild it so).
    const history = await env.client.workflow.getHandle(chat.workflowId, firstRun).fetchHistory();
    const replay = {
      workflowBundle: { codePath: inject('workflowBundlePath') },
      sinks: workflowSpanSinks(undefined, () => undefined),
    };
    await expect(Worker.runReplayHistory(replay, history, chat.workflowId)).resolves.toBeUndefined();
    const last = await session.describe();
    expect(last.status.name).toBe('RUNNING');
    expect(last.historyLength).toBeLessThan(SESSION_RUN_EVENTS);
    expect(await chat.history()).toHaveLength(22);
  });
});
