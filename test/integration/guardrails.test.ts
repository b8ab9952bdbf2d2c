import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { workflowSpanSinks } from '../../src/telemetry/workflow-span-sink.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { GuardrailTripped } from '../../src/errors.ts';
import type {
  GuardrailVerdict,
  InputGuardrail,
  OutputGuardrail,
  ToolGuardrail,
} from '../../src/guardrails/types.ts';
import type { ModelAdapter } from '../../src/models/model-adapter.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool, TokenTool } from './tools.ts';
import { inProcessLiveChannel } from '../../src/live-text/channel.ts';

const CANARY = 'sk-canary-guardrail-7f31ab';

/** An input check that trips on "forbidden" and replaces "secret-project" with "a project". */
const screen: InputGuardrail = {
  name: 'screen',
  check: (prompt) => {
    if (prompt.includes('forbidden')) return { tripwire: 'the prompt asks for something forbidden' };
    if (prompt.includes('secret-project')) return { replace: prompt.replace('secret-project', 'a project') };
    return undefined;
  },
};

describe('guardrails on the real server', () => {
  let env: TestWorker;
  const models: Record<string, ScriptedModel> = {};
  /** Each agent gets the next model from the queue its test sets. */
  const queue = new Map<string, ScriptedModel>();
  /** The agent's model: the script its test set last. */
  const llmFor = (agent: string): ModelAdapter => ({
    specificationVersion: 'toolkit-agent.model.v1',
    modelId: 'scripted',
    generate: (request) => {
      const model = queue.get(agent);
      if (!model) throw new Error(`No script for ${agent}`);
      return model.generate(request);
    },
  });
  const parallelStarted: string[] = [];
  /** Runs whose histories the last test replays with today's workflow code. */
  const replayable: string[] = [];
  /** Writes its answer in pieces, 150 ms apart (honouring the step's signal), and says how far it got. */
  const written: string[] = [];
  const slowWriter: ModelAdapter = {
    specificationVersion: 'toolkit-agent.model.v1',
    modelId: 'slow-writer',
    generate: async ({ onTextDelta, signal }) => {
      const pieces = ['Here is what ', 'I know: the ', 'SECRET-PLAN is ', 'to launch ', 'on Monday.'];
      for (const piece of pieces) {
        if (signal?.aborted) throw new Error('aborted');
        written.push(piece);
        onTextDelta?.(piece);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      return { text: pieces.join(''), toolCalls: [] };
    },
  };
  let releaseParallel: (verdict: GuardrailVerdict) => void = () => undefined;

  beforeAll(async () => {
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'upstream', type: 'bearer', token: CANARY });
    const noFive: OutputGuardrail = {
      name: 'no_five',
      check: ({ text }) => (text.includes('5') ? { tripwire: 'the answer says 5' } : true),
    };
    const polite: OutputGuardrail = {
      name: 'polite',
      check: ({ text }) => {
        if (text.includes('rude')) return { retry: 'Answer politely.' };
        if (text.includes('SHOUT')) return { replace: text.toLowerCase() };
        return { allow: true };
      },
    };
    const tools: ToolGuardrail = {
      name: 'tool_policy',
      check: (call) => {
        if (call.phase === 'before' && (call.args as { a?: number }).a === 13)
          return { reject: 'Adding 13 is not allowed; use another number.' };
        if (call.phase === 'before' && (call.args as { a?: number }).a === 666)
          return { tripwire: 'the devil' };
        if (call.phase === 'after' && call.result?.includes('token'))
          return { tripwire: `the result leaks a token: ${call.result}` };
        return undefined;
      },
    };
    const parallel: InputGuardrail = {
      name: 'slow_screen',
      mode: 'parallel',
      check: async (prompt) => {
        parallelStarted.push(prompt);
        return await new Promise((resolve) => {
          releaseParallel = resolve;
        });
      },
    };
    env = await startTestWorker({
      input: { llm: llmFor('input'), guardrails: { input: [screen] } },
      output: { llm: llmFor('output'), guardrails: { output: [noFive, polite] } },
      tools: {
        llm: llmFor('tools'),
        tools: [new AddTool(), new TokenTool()],
        credentialStore,
        guardrails: { tools: [tools] },
      },
      parallel: { llm: llmFor('parallel'), tools: [new AddTool()], guardrails: { input: [parallel] } },
      chat: { llm: llmFor('chat'), guardrails: { input: [screen] } },
      parent: {
        llm: llmFor('parent'),
        guardrails: { input: [screen] },
        subAgents: { helper: { definition: { llm: llmFor('helper') }, description: 'Helps' } },
      },
      deep: { llm: llmFor('deep'), guardrails: { input: [screen], output: [noFive] } },
      // A parent whose served sub-agent (by name) has no guardrails of its own: it runs the parent's.
      boss: {
        llm: llmFor('boss'),
        guardrails: { input: [screen], tools: [tools] },
        subAgents: { served: 'served' },
      },
      served: { llm: llmFor('served'), tools: [new AddTool()] },
      streaming: {
        llm: slowWriter,
        liveText: { batchMs: 20 },
        guardrails: {
          output: [
            {
              name: 'no_plans',
              streaming: true,
              check: ({ text }) =>
                text.includes('SECRET-PLAN') ? { tripwire: 'it tells the plan' } : undefined,
            },
          ],
        },
      },
    });
  });
  afterAll(() => env?.stop());

  function script(agent: string, steps: ConstructorParameters<typeof ScriptedModel>[0]): ScriptedModel {
    const model = new ScriptedModel(steps);
    queue.set(agent, model);
    models[agent] = model;
    return model;
  }

  it('an input check allows, replaces (the model sees the new prompt) and trips (no model step; GuardrailTripped)', async () => {
    const llm = script('input', [{ text: 'fine' }, { text: 'also fine' }]);
    const allowed = await env.agents.run('input', 'hello');
    expect(allowed.output).toBe('fine');
    const replaced = await env.agents.run('input', 'tell me about secret-project');
    expect(replaced.output).toBe('also fine');
    expect(JSON.stringify(llm.calls[1]!.messages)).toContain('tell me about a project');
    expect(JSON.stringify(llm.calls[1]!.messages)).not.toContain('secret-project');

    const handle = await env.agents.start('input', 'do the forbidden thing');
    replayable.push(handle.workflowId);
    const events = await collect(handle.events());
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailTripped);
    expect(error).toMatchObject({
      kind: 'input',
      check: 'screen',
      reason: 'the prompt asks for something forbidden',
    });
    expect(llm.calls).toHaveLength(2);
    const tripped = events.find((e) => e.type === 'guardrail_tripped');
    expect(tripped?.payload).toMatchObject({ kind: 'input', check: 'screen' });
    expect(events.at(-1)).toMatchObject({ type: 'run_completed', payload: { stop_reason: 'guardrail' } });
    // The Temporal UI's current details say which check stopped it, and why.
    const metadata = await handle.workflow.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toContain(
      '**Stopped by the input guardrail "screen"** after 0 steps: the prompt asks for something forbidden',
    );
    // The tripped prompt is withdrawn from the stored conversation.
    const stored = JSON.stringify(await env.memoryStore.read(handle.workflowId));
    expect(stored).not.toContain('forbidden thing');
  });

  it('an output check allows, replaces, sends back with feedback (counted), and trips', async () => {
    const llm = script('output', [
      { text: 'The sum is 4.' },
      { text: 'SHOUT' },
      { text: 'a rude answer' },
      { text: 'a kind answer' },
      { text: 'It is 5.' },
    ]);
    expect((await env.agents.run('output', 'one')).output).toBe('The sum is 4.');
    const replaced = await env.agents.start('output', 'two');
    expect((await replaced.result()).output).toBe('shout');
    expect(JSON.stringify(await env.memoryStore.read(replaced.workflowId))).not.toContain('SHOUT');
    const retried = await env.agents.run('output', 'three');
    replayable.push(retried.metadata.workflow_id);
    expect(retried.output).toBe('a kind answer');
    expect(retried.metadata.guardrail_retries).toBe(1);
    expect(JSON.stringify(llm.calls[3]!.messages)).toContain('Answer politely.');
    const handle = await env.agents.start('output', 'four');
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'output', check: 'no_five', reason: 'the answer says 5' });
    const stored = JSON.stringify(await env.memoryStore.read(handle.workflowId));
    expect(stored).not.toContain('It is 5.');
  });

  it('a tool check rejects (the model sees why) and trips before a call and on its result, with no secret in what is recorded', async () => {
    const llm = script('tools', [
      { toolCalls: [{ name: 'add', args: { a: 13, b: 1 } }] },
      { toolCalls: [{ name: 'add', args: { a: 2, b: 1 } }] },
      { text: 'three' },
      { toolCalls: [{ name: 'add', args: { a: 666, b: 0 } }] },
      { toolCalls: [{ name: 'token', args: {} }] },
    ]);
    const ok = await env.agents.run('tools', 'add');
    expect(ok.output).toBe('three');
    expect(JSON.stringify(llm.calls[1]!.messages)).toContain('Adding 13 is not allowed');

    const before = await env.agents.start('tools', 'devil');
    expect(await before.result().catch((e: unknown) => e)).toMatchObject({
      kind: 'tool',
      check: 'tool_policy',
      tool: 'add',
      phase: 'before',
    });
    const after = await env.agents.start('tools', 'token');
    replayable.push(after.workflowId);
    const error = (await after.result().catch((e: unknown) => e)) as GuardrailTripped;
    expect(error).toMatchObject({ kind: 'tool', tool: 'token', phase: 'after' });
    expect(error.reason).toContain('[REDACTED]');
    expect(await historyText(env.client.workflow.getHandle(after.workflowId))).not.toContain(CANARY);
    expect(JSON.stringify(await env.memoryStore.read(after.workflowId))).not.toContain(CANARY);
  });

  it('a parallel input check: the first step runs beside it, but its tool call waits until the check passed; a trip cancels the step', async () => {
    const llm = script('parallel', [
      { toolCalls: [{ name: 'add', args: { a: 1, b: 2 } }] },
      { text: 'done' },
      { delayMs: 30_000, text: 'never' },
      { text: 'a quick answer' },
    ]);
    const handle = await env.agents.start('parallel', 'first');
    const events: string[] = [];
    const reading = (async () => {
      for await (const event of handle.events()) events.push(event.type);
    })();
    // The model step answered with a tool call; the check has not answered yet.
    await until(() => llm.calls.length === 1 && parallelStarted.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(events).not.toContain('tool_called');
    releaseParallel(undefined);
    expect((await handle.result()).output).toBe('done');
    await reading;
    expect(events).toContain('tool_called');

    const tripped = await env.agents.start('parallel', 'second');
    replayable.push(handle.workflowId, tripped.workflowId);
    await until(() => llm.calls.length === 3 && parallelStarted.length === 2);
    const startedAt = Date.now();
    releaseParallel({ tripwire: 'no' });
    const error = await tripped.result().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'input', check: 'slow_screen' });
    expect(Date.now() - startedAt).toBeLessThan(15_000);

    // The step answered first, then the check tripped: the answer does not count, and is withdrawn.
    const late = await env.agents.start('parallel', 'third');
    replayable.push(late.workflowId);
    await until(() => llm.calls.length === 4 && parallelStarted.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    releaseParallel({ tripwire: 'too late' });
    expect(await late.result().catch((e: unknown) => e)).toMatchObject({ reason: 'too late' });
    const stored = JSON.stringify(await env.memoryStore.read(late.workflowId));
    expect(stored).not.toContain('a quick answer');
    expect(stored).not.toContain('third');
  });

  it('an inline sub-agent runs the guardrails of its parent (its task trips them); the parent hears it stopped', async () => {
    const parent = script('parent', [
      { toolCalls: [{ name: 'agent_helper', args: { task: 'do the forbidden thing' } }] },
      { text: 'the helper could not' },
    ]);
    const helper = script('helper', []);
    const result = await env.agents.run('parent', 'ask the helper');
    expect(result.output).toBe('the helper could not');
    expect(helper.calls).toHaveLength(0);
    expect(JSON.stringify(parent.calls[1]!.messages)).toContain('stopped early (guardrail)');
  });

  it("a served sub-agent without guardrails of its own runs its parent's: input and tool checks", async () => {
    const boss = script('boss', [
      { toolCalls: [{ name: 'agent_served', args: { task: 'the forbidden task' } }] },
      { toolCalls: [{ name: 'agent_served', args: { task: 'add 13 and 1' } }] },
      { text: 'done' },
    ]);
    const served = script('served', [
      { toolCalls: [{ name: 'add', args: { a: 13, b: 1 } }] },
      { text: 'refused' },
    ]);
    const result = await env.agents.run('boss', 'delegate');
    expect(result.output).toBe('done');
    // The first task tripped the parent's input check in the child: its model was never asked with it.
    expect(JSON.stringify(boss.calls[1]!.messages)).toContain('stopped early (guardrail)');
    expect(served.calls).toHaveLength(2);
    expect(JSON.stringify(served.calls[0]!.messages)).toContain('add 13 and 1');
    // The parent's tool check rejected the child's call.
    expect(JSON.stringify(served.calls[1]!.messages)).toContain('Adding 13 is not allowed');
    // Run alone, the served agent has no guardrails.
    script('served', [{ text: 'fine' }]);
    expect((await env.agents.run('served', 'the forbidden task')).output).toBe('fine');
  });

  it('a deep run checks the user prompt once (plan phase, replaced for every phase) and its answer', async () => {
    const llm = script('deep', [{ text: '1. answer' }, { text: 'It is 5.' }]);
    const handle = await env.agents.start('deep', 'about secret-project', { deep: {} });
    replayable.push(handle.workflowId);
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'output', check: 'no_five' });
    expect(JSON.stringify(llm.calls)).not.toContain('secret-project');
    expect(JSON.stringify(llm.calls[1]!.messages)).toContain('about a project');
    const tripped = await env.agents.start('deep', 'the forbidden plan', { deep: {} });
    expect(await tripped.result().catch((e: unknown) => e)).toMatchObject({ kind: 'input', check: 'screen' });
    expect(llm.calls).toHaveLength(2);
  });

  it('a streaming output check withdraws the answer as it is written: readers are told, nothing of it is kept', async () => {
    const chat = env.agents.chatSession('streaming', {
      sessionId: randomUUID(),
      memoryStore: env.memoryStore,
    });
    const saidLive: string[] = [];
    const unsubscribe = inProcessLiveChannel().subscribe(chat.workflowId, (message) => {
      if (message.kind === 'text') saidLive.push(message.text);
    });
    const events = await collect(chat.stream('what is the plan?'));
    unsubscribe();
    replayable.push(chat.workflowId);
    // Text a streaming check reads is said live only once it passed: checked batches reach readers, the rest never.
    expect(saidLive.join('')).toContain('Here is what');
    expect(saidLive.join('')).not.toContain('SECRET-PLAN');
    // The model was stopped: it never wrote its last pieces.
    expect(written).toContain('SECRET-PLAN is ');
    expect(written).not.toContain('on Monday.');
    const deltas = events.filter((e) => e.type === 'text_delta').map((e) => String(e.payload.text));
    // What was streamed before the trip reached the readers; the rest never did.
    expect(deltas.join('')).toContain('Here is what');
    expect(deltas.join('')).not.toContain('SECRET-PLAN');
    const tripped = events.find((e) => e.type === 'guardrail_tripped');
    expect(tripped?.payload).toMatchObject({ check: 'no_plans', withdrawn: true });
    expect(tripped?.message).toContain('withdrawn');
    const history = JSON.stringify(await chat.history());
    expect(history).not.toContain('Here is what');
    expect(history).not.toContain('SECRET-PLAN');
    // The next turn trips the same way; send() says so with GuardrailTripped.
    const error = await chat.send('and again?').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailTripped);
    expect(error).toMatchObject({ kind: 'output', check: 'no_plans', withdrawn: true });
  });

  it("a run chooses which of the agent's checks it runs, by name; a name the agent lacks is a clear error", async () => {
    const llm = script('input', [{ text: 'unchecked' }]);
    const unchecked = await env.agents.run('input', 'do the forbidden thing', { guardrails: { input: [] } });
    expect(unchecked.output).toBe('unchecked');
    const error = await env.agents
      .run('input', 'hello', { guardrails: { input: ['nope'] } })
      .catch((e: unknown) => e);
    expect(String(error)).toMatch(
      /names input guardrail\(s\) "nope" that agent "input" does not have \(it has: "screen"\)/,
    );
    expect(llm.calls).toHaveLength(1);
    const tools = script('tools', [
      { toolCalls: [{ name: 'add', args: { a: 13, b: 1 } }] },
      { text: 'fourteen' },
    ]);
    const run = await env.agents.run('tools', 'add 13', { guardrails: { tools: [] } });
    expect(run.output).toBe('fourteen');
    expect(JSON.stringify(tools.calls[1]!.messages)).not.toContain('not allowed');
  });

  it('a chat turn that trips ends with guardrail_tripped, and the next turn works', async () => {
    script('chat', [{ text: 'hi there' }, { text: 'still here' }]);
    const chat = env.agents.chatSession('chat', { sessionId: randomUUID(), memoryStore: env.memoryStore });
    const error = await chat.send('forbidden words').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GuardrailTripped);
    expect((await chat.send('hello')).output).toBe('hi there');
    expect((await chat.send('and now?')).output).toBe('still here');
    const history = JSON.stringify(await chat.history());
    expect(history).not.toContain('forbidden words');
  });

  it('the histories of these runs (trips, retries, a cancelled parallel step, a withdrawn stream) replay without a nondeterminism error', async () => {
    expect(replayable.length).toBeGreaterThanOrEqual(8);
    for (const workflowId of replayable) {
      const handle = env.client.workflow.getHandle(workflowId);
      const history = await handle.fetchHistory();
      await expect(
        Worker.runReplayHistory(
          {
            workflowBundle: { codePath: inject('workflowBundlePath') },
            sinks: workflowSpanSinks(undefined, () => undefined),
          },
          history,
          workflowId,
        ),
      ).resolves.toBeUndefined();
    }
  }, 120_000);
});

async function until(test: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
