import { randomBytes, randomUUID } from 'node:crypto';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client.ts';
import type { PayloadEncryptionOptions } from '../../src/codec/key-ring.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import {
  recordCase,
  recordedModel,
  recordedTools,
  replayCase,
  type RecordedCase,
} from '../../src/evals/index.ts';
import type { ModelRequest } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { createAgentWorker } from '../../src/worker.ts';
import { adder } from './eval-models.ts';
import { historyText, startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool, SumTool, TokenTool } from './tools.ts';
import { encodedBundlePath } from '../support/encoded-bundle.ts';

const CANARY = 'sk-canary-eval-7c41e0a9';

const PROMPT = 'Add 2 and 3, check the token, then ask calc';
const lastContent = (request: ModelRequest) => String(request.messages.at(-1)?.content);

describe('recorded runs: a finished run becomes a case and replays against a changed agent', () => {
  const workers: TestWorker[] = [];
  let credentialStore: InMemoryCredentialStore;
  let recorded: RecordedCase;
  beforeAll(async () => {
    credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'upstream', type: 'bearer', token: CANARY }, { tenant: 'acme' });
    const env = await startTestWorker({
      support: {
        llm: new ScriptedModel([
          { text: 'Adding first.', toolCalls: [{ name: 'add', args: { a: 2, b: 3 }, id: 'c1' }] },
          { toolCalls: [{ name: 'token', args: {}, id: 'c2' }] },
          { toolCalls: [{ name: 'agent_calc', args: { task: 'Add 4 and 4' }, id: 'c3' }] },
          (request) => ({ text: `Done: ${lastContent(request)}` }),
        ]),
        tools: [new AddTool(), new TokenTool()],
        credentialStore,
        subAgents: { calc: 'calc' },
      },
      calc: { llm: adder(2), tools: [new AddTool()] },
    });
    workers.push(env);
    const handle = await env.agents.startRun('support', PROMPT, { tenant: 'acme' });
    await handle.result();
    recorded = await recordCase(handle, { name: 'support run', memoryStore: env.memoryStore });
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  it('records the prompt, the model steps, every tool call with its result (the sub-agent too) and the answer', () => {
    expect(recorded.name).toBe('support run');
    expect(recorded.prompt).toBe(PROMPT);
    expect(recorded.tenant).toBe('acme');
    expect(recorded.expected).toBe('Done: The sum is 8.');
    expect(recorded.recorded.agent).toBe('support');
    expect(recorded.recorded.steps).toEqual([
      { text: 'Adding first.', toolCalls: [{ id: 'c1', name: 'add', args: { a: 2, b: 3 } }] },
      { toolCalls: [{ id: 'c2', name: 'token', args: {} }] },
      { toolCalls: [{ id: 'c3', name: 'agent_calc', args: { task: 'Add 4 and 4' } }] },
      { text: 'Done: The sum is 8.' },
    ]);
    expect(recorded.recorded.toolCalls).toEqual([
      { tool: 'add', args: { a: 2, b: 3 }, callId: 'c1', output: '5', depth: 0, step: 1 },
      {
        tool: 'token',
        args: {},
        callId: 'c2',
        output: expect.stringContaining('[REDACTED]') as unknown,
        depth: 0,
        step: 2,
      },
      {
        tool: 'agent_calc',
        args: { task: 'Add 4 and 4' },
        callId: 'c3',
        output: 'The sum is 8.',
        depth: 0,
        step: 3,
      },
      // The sub-agent's call, flattened into the trajectory with its agent (and its parent's step).
      {
        tool: 'add',
        args: { a: 4, b: 4 },
        callId: expect.any(String) as unknown,
        output: '8',
        agent: 'calc',
        depth: 1,
        step: 3,
      },
    ]);
  });

  it("records the sub-agent's model steps with its parent", () => {
    expect(recorded.recorded.subAgents).toEqual({
      calc: [
        { toolCalls: [{ id: expect.any(String) as unknown, name: 'add', args: { a: 4, b: 4 } }] },
        { text: 'The sum is 8.' },
      ],
    });
  });

  it("serves the recorded tool results in place of the tools where the calls match, the sub-agent's too", async () => {
    const add = new AddTool();
    const childAdd = new AddTool();
    const tools = recordedTools(recorded, [add, new TokenTool()]);
    const env = await startTestWorker({
      served: { llm: recordedModel(recorded), tools, subAgents: { calc: 'calc' } },
      // A first call with other arguments than the record's: it runs the tool.
      other: {
        llm: new ScriptedModel([{ toolCalls: [{ name: 'add', args: { a: 2, b: 4 } }] }, { text: 'Done.' }]),
        tools: recordedTools(recorded, [add]),
      },
      // The sub-agent played back from the record too: its model and its tool's result.
      calc: {
        llm: recordedModel(recorded, { agent: 'calc' }),
        tools: recordedTools(recorded, [childAdd], { agent: 'calc' }),
      },
    });
    workers.push(env);
    // No credential store here: the token call is answered from the record, never run.
    const served = await replayCase(recorded, { client: env.agents, agent: 'served' });
    expect(served.departure).toBeUndefined();
    expect(add.ran).toEqual([]);
    expect(childAdd.ran).toEqual([]);
    expect(served.run.toolCalls).toContainEqual({
      tool: 'add',
      args: { a: 4, b: 4 },
      agent: 'calc',
      depth: 1,
    });
    expect(served.toolCalls.at(-1)).toMatchObject({ tool: 'add', agent: 'calc', output: '8' });
    expect(served.toolCalls.slice(0, 2).map((c) => c.output)).toEqual([
      '5',
      recorded.recorded.toolCalls[1]!.output,
    ]);
    const other = await replayCase(recorded, { client: env.agents, agent: 'other' });
    expect(add.ran).toEqual([{ a: 2, b: 4 }]);
    expect(other.departure).toMatchObject({ kind: 'call', index: 0 });
  });

  it('keeps the credential a tool read out of the recorded case', () => {
    const text = JSON.stringify(recorded);
    expect(text).toContain('the token is');
    expect(text).not.toContain(CANARY);
  });

  it('replays to the same trajectory and answer on the unchanged agent, and departs where a tool was renamed or a prompt changed the first call', async () => {
    const env = await startTestWorker({
      same: {
        llm: recordedModel(recorded),
        tools: [new AddTool(), new TokenTool()],
        credentialStore,
        subAgents: { calc: 'calc' },
      },
      renamed: {
        llm: recordedModel(recorded),
        tools: [new SumTool(), new TokenTool()],
        credentialStore,
        subAgents: { calc: 'calc' },
      },
      reprompted: {
        systemPrompt: 'Always add 10 to the first number.',
        // A model that follows its instructions: the first call changes with the system prompt.
        llm: new ScriptedModel([
          (request) => {
            const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
            const a = system.includes('add 10') ? 12 : 2;
            return { toolCalls: [{ name: 'add', args: { a, b: 3 } }] };
          },
          { text: 'Done.' },
        ]),
        tools: [new AddTool()],
      },
      calc: { llm: adder(2), tools: [new AddTool()] },
    });
    workers.push(env);

    const same = await replayCase(recorded, { client: env.agents, agent: 'same' });
    expect(same.departure).toBeUndefined();
    expect(same.run.output).toBe('Done: The sum is 8.');
    expect(same.toolCalls.map((c) => [c.tool, c.args, c.agent])).toEqual(
      recorded.recorded.toolCalls.map((c) => [c.tool, c.args, c.agent]),
    );

    const renamed = await replayCase(recorded, { client: env.agents, agent: 'renamed' });
    expect(renamed.departure).toMatchObject({
      kind: 'call',
      index: 0,
      recorded: { tool: 'add', args: { a: 2, b: 3 } },
      now: { tool: 'add', error: expect.any(String) as unknown },
    });
    expect(renamed.departure!.reason).toMatch(/^add failed where the record's call succeeded/);

    const reprompted = await replayCase(recorded, { client: env.agents, agent: 'reprompted' });
    expect(reprompted.departure).toEqual({
      kind: 'call',
      index: 0,
      step: 1,
      recorded: { tool: 'add', args: { a: 2, b: 3 } },
      now: { tool: 'add', args: { a: 12, b: 3 } },
      reason: 'called add({"a":12,"b":3}) where the record called add({"a":2,"b":3})',
    });
  });

  it('records an encrypted run through the configured codec', async () => {
    const encryption: PayloadEncryptionOptions = {
      keys: { k1: randomBytes(32).toString('base64') },
      currentKeyId: 'k1',
    };
    const taskQueue = `eval-enc-${randomUUID()}`;
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await createAgentWorker({
      connection,
      taskQueue,
      encryption,
      agents: { calc: { llm: adder(2), tools: [new AddTool()] } },
      memoryStore: new InMemoryMemoryStore(),
      workflowBundle: { codePath: await encodedBundlePath() },
    });
    const running = worker.run();
    const agents = await AgentClient.connect({ address: inject('temporalAddress'), taskQueue, encryption });
    try {
      const handle = await agents.startRun('calc', 'Add 19 and 23, secretly');
      await handle.result();
      // The history holds ciphertext only: the prompt is not readable in it.
      expect(await historyText(handle.workflow)).not.toContain('secretly');
      const evalCase = await recordCase(handle);
      expect(evalCase.prompt).toBe('Add 19 and 23, secretly');
      expect(evalCase.recorded.toolCalls).toEqual([
        { tool: 'add', args: { a: 19, b: 23 }, callId: 'call_1_1', output: '42', depth: 0, step: 1 },
      ]);
      expect(evalCase.recorded.output).toBe('The sum is 42.');
    } finally {
      await agents.close();
      worker.shutdown();
      await running;
      await connection.close();
    }
  });
});
