import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import {
  recordCase,
  recordedModel,
  recordedTools,
  replayCase,
  toolTrajectory,
  type RecordedCase,
} from '../../src/evals/index.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { adder } from './eval-models.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool, SumTool, TokenTool } from './tools.ts';

const CANARY = 'sk-canary-chat-eval-3f9b2d17';

const TURNS = ['Hello', 'Add 2 and 3', 'Check the token, then ask calc to add 4 and 4'];
const lastContent = (request: ModelRequest) => String(request.messages.at(-1)?.content);

describe('recorded chat sessions: the turns of a session become a case and replay turn by turn', () => {
  const workers: TestWorker[] = [];
  let recorded: RecordedCase;
  beforeAll(async () => {
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'upstream', type: 'bearer', token: CANARY }, { tenant: 'acme' });
    const env = await startTestWorker({
      desk: {
        llm: new ScriptedModel([
          { text: 'Hi! What shall I add?' },
          { text: 'Adding.', toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'a1' }] },
          (request) => ({ text: `The sum is ${lastContent(request)}.` }),
          { toolCalls: [{ name: 'token', args: {}, id: 't1' }] },
          { toolCalls: [{ name: 'agent_calc', args: { task: 'Add 4 and 4' }, id: 'c1' }] },
          (request) => ({ text: `Done: ${lastContent(request)}` }),
        ]),
        tools: [new AddTool(), new TokenTool()],
        credentialStore,
        subAgents: { calc: 'calc' },
      },
      calc: { llm: adder(2), tools: [new AddTool()] },
    });
    workers.push(env);
    const session = env.agents.chatSession('desk', { tenant: 'acme' });
    for (const turn of TURNS) await session.send(turn);
    // Read from the session's history alone: no worker answers while it is recorded.
    await env.stopWorker();
    recorded = await recordCase(env.agents.getHandle(session.workflowId), {
      name: 'desk session',
      memoryStore: env.memoryStore,
    });
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it('records the turns, each turn’s model steps, tool calls (the sub-agent’s too) and answer', () => {
    expect(recorded.name).toBe('desk session');
    expect(recorded.prompt).toEqual(TURNS);
    expect(recorded.tenant).toBe('acme');
    expect(recorded.expected).toBe('Done: The sum is 8.');
    expect(recorded.recorded.agent).toBe('desk');
    expect(recorded.recorded.turns).toEqual([
      { prompt: 'Hello', output: 'Hi! What shall I add?' },
      { prompt: 'Add 2 and 3', output: 'The sum is 5.' },
      { prompt: TURNS[2], output: 'Done: The sum is 8.' },
    ]);
    expect(recorded.recorded.steps).toEqual([
      { turn: 1, text: 'Hi! What shall I add?' },
      // The text beside the call, from the stored conversation.
      { turn: 2, text: 'Adding.', toolCalls: [{ id: 'a1', name: 'add', args: { a: 2, b: 3 } }] },
      { turn: 2, text: 'The sum is 5.' },
      { turn: 3, toolCalls: [{ id: 't1', name: 'token', args: {} }] },
      { turn: 3, toolCalls: [{ id: 'c1', name: 'agent_calc', args: { task: 'Add 4 and 4' } }] },
      { turn: 3, text: 'Done: The sum is 8.' },
    ]);
    expect(
      recorded.recorded.toolCalls.map(({ tool, agent, turn, step, output }) => ({
        tool,
        agent,
        turn,
        step,
        output,
      })),
    ).toEqual([
      { tool: 'add', agent: undefined, turn: 2, step: 1, output: '5' },
      {
        tool: 'token',
        agent: undefined,
        turn: 3,
        step: 1,
        output: expect.stringContaining('[REDACTED]') as unknown,
      },
      { tool: 'agent_calc', agent: undefined, turn: 3, step: 2, output: 'The sum is 8.' },
      { tool: 'add', agent: 'calc', turn: 3, step: 2, output: '8' },
    ]);
    expect(recorded.recorded.subAgents).toEqual({
      calc: [
        { toolCalls: [{ id: expect.any(String) as unknown, name: 'add', args: { a: 4, b: 4 } }] },
        { text: 'The sum is 8.' },
      ],
    });
  });

  it('keeps the credential a tool read out of the recorded case', () => {
    const text = JSON.stringify(recorded);
    expect(text).toContain('the token is');
    expect(text).not.toContain(CANARY);
  });

  it('replays turn by turn to the same calls and answers, serving the recorded results (the sub-agent’s too)', async () => {
    const add = new AddTool();
    const childAdd = new AddTool();
    const env = await startTestWorker({
      // No credential store: the token call is answered from the record, never run.
      same: {
        llm: recordedModel(recorded),
        tools: recordedTools(recorded, [add, new TokenTool()]),
        subAgents: { calc: 'calc' },
      },
      calc: {
        llm: recordedModel(recorded, { agent: 'calc' }),
        tools: recordedTools(recorded, [childAdd], { agent: 'calc' }),
      },
    });
    workers.push(env);
    const replay = await replayCase(recorded, { client: env.agents, agent: 'same' });
    expect(replay.departure).toBeUndefined();
    expect(replay.run.output).toBe('Done: The sum is 8.');
    expect(add.ran).toEqual([]);
    expect(childAdd.ran).toEqual([]);
    expect(replay.toolCalls.map((c) => [c.turn, c.tool, c.agent, c.output])).toEqual(
      recorded.recorded.toolCalls.map((c) => [c.turn, c.tool, c.agent, c.output]),
    );
    // Trajectory scorers see the sub-agent's call, flattened with its agent.
    const trajectory = toolTrajectory(
      [
        { tool: 'add', args: { a: 2, b: 3 } },
        { tool: 'token' },
        { tool: 'agent_calc' },
        { tool: 'add', args: { a: 4, b: 4 } },
      ],
      { mode: 'exact' },
    );
    expect(await trajectory.score(replay.run, recorded)).toMatchObject({ pass: true });
    expect(replay.run.toolCalls.at(-1)).toEqual({
      tool: 'add',
      args: { a: 4, b: 4 },
      agent: 'calc',
      depth: 1,
    });
  });

  it('reports the first departure at the turn where a renamed tool is first called', async () => {
    const env = await startTestWorker({
      renamed: {
        llm: recordedModel(recorded),
        tools: recordedTools(recorded, [new SumTool(), new TokenTool()]),
        subAgents: { calc: 'calc' },
      },
      calc: {
        llm: recordedModel(recorded, { agent: 'calc' }),
        tools: recordedTools(recorded, [new AddTool()], { agent: 'calc' }),
      },
    });
    workers.push(env);
    const replay = await replayCase(recorded, { client: env.agents, agent: 'renamed' });
    expect(replay.departure).toMatchObject({
      kind: 'call',
      turn: 2,
      index: 0,
      step: 1,
      recorded: { tool: 'add', args: { a: 2, b: 3 } },
      now: { tool: 'add', error: expect.any(String) as unknown },
    });
    expect(replay.departure!.reason).toMatch(/^add failed where the record's call succeeded/);
  });

  it('records every turn of a session that continued as new, across its chain of runs', async () => {
    const echo = (request: ModelRequest) => ({
      text: `echo: ${String(request.messages.findLast((m) => m.role === 'user')?.content)}`,
    });
    const env = await startTestWorker({
      echo: { llm: new ScriptedModel(Array.from({ length: 400 }, () => echo)) },
    });
    workers.push(env);
    const session = env.agents.chatSession('echo');
    const sent: string[] = [];
    const runOf = async () => (await env.client.workflow.getHandle(session.workflowId).describe()).runId;
    let firstRun: string | undefined;
    // Until the session has continued as new (Temporal suggests it as its history grows), then one more turn.
    for (let i = 1; i <= 400; i++) {
      sent.push(`q${i}`);
      await session.send(`q${i}`);
      firstRun ??= await runOf();
      if (i % 10 === 0 && (await runOf()) !== firstRun) break;
    }
    expect(await runOf()).not.toBe(firstRun);
    sent.push('last');
    await session.send('last');
    const evalCase = await recordCase(env.agents.getHandle(session.workflowId));
    expect(evalCase.prompt).toEqual(sent);
    expect(evalCase.recorded.turns!.map((turn) => turn.output)).toEqual(sent.map((q) => `echo: ${q}`));
    expect(evalCase.recorded.steps).toHaveLength(sent.length);
    expect(evalCase.recorded.steps.at(-1)).toEqual({ turn: sent.length, text: 'echo: last' });
  });

  it('records a turn delivered by a webhook (its events read from the session, which a worker answers)', async () => {
    const echo = (request: ModelRequest) => ({
      text: `echo: ${String(request.messages.findLast((m) => m.role === 'user')?.content)}`,
    });
    const env = await startTestWorker({ echo: { llm: new ScriptedModel([echo, echo]) } });
    workers.push(env);
    const session = env.agents.chatSession('echo');
    await session.deliver('from the webhook', { messageId: 'delivery-1' });
    // A send waits for the delivered turn before it: both have answered once it returns.
    await session.send('from the user');
    const evalCase = await recordCase(env.agents.getHandle(session.workflowId));
    expect(evalCase.prompt).toEqual(['from the webhook', 'from the user']);
    expect(evalCase.recorded.steps).toEqual([
      { turn: 1, text: 'echo: from the webhook' },
      { turn: 2, text: 'echo: from the user' },
    ]);
    expect(evalCase.recorded.turns!.map((turn) => turn.output)).toEqual([
      'echo: from the webhook',
      'echo: from the user',
    ]);
  });
});
