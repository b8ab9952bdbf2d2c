import { afterEach, describe, expect, inject, it } from 'vitest';
import { Agent } from '../../src/agent/agent.ts';
import type { AgentDefinition } from '../../src/agent/definition.ts';
import type { AgentRunOptions } from '../../src/agent/options.ts';
import type { AgentResult } from '../../src/common/run.ts';
import { QuotaExceededError, RunFailedError } from '../../src/errors.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { InMemoryUsageStore } from '../../src/usage/in-memory.ts';
import { AddTool } from './tools.ts';
import { collect, ONE_TOOL_CALL_RUN, startTestWorker } from './helpers.ts';

describe('Agent on an existing cluster', () => {
  const agents: Agent[] = [];
  function make(llm: ScriptedModel, extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}): Agent {
    const agent = new Agent({
      llm,
      tools: [new AddTool()],
      memoryStore: new InMemoryMemoryStore(),
      temporal: { address: inject('temporalAddress'), taskQueue: `facade-${agents.length}-${Date.now()}` },
      ...extra,
    });
    agents.push(agent);
    return agent;
  }
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.close();
  });

  it('runs a prompt as a workflow on the given task queue', async () => {
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 4, b: 5 } }] },
      { text: 'Nine.' },
    ]);
    const agent = make(llm);
    const result = await agent.run('What is 4 + 5?');
    expect(result.output).toBe('Nine.');
    expect(agent.temporal.taskQueue).toMatch(/^facade-0-/);
    expect(agent.temporal.namespace).toBe('default');
    const description = await agent.temporal.client.workflow
      .getHandle(result.metadata.workflow_id)
      .describe();
    expect(description.type).toBe('agentRun');
    expect(description.status.name).toBe('COMPLETED');
    llm.assertAllStepsUsed();
  });

  it('streams the events of a run as they happen', async () => {
    const agent = make(
      new ScriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] }, { text: 'Two.' }]),
    );
    const events = await collect(agent.stream('1 + 1?'));
    expect(events.map((e) => e.type)).toEqual(ONE_TOOL_CALL_RUN);
    expect(events.at(-1)!.payload.output).toBe('Two.');
  });

  it('passes an explicit maxIterations and a system prompt to every run', async () => {
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] },
      { text: 'cut short', toolCalls: [{ name: 'add', args: { a: 2, b: 2 } }] },
    ]);
    const agent = make(llm, { maxIterations: 2, systemPrompt: 'You add numbers.' });
    const result = await agent.run('Keep adding');
    expect(result.metadata).toMatchObject({ stop_reason: 'max_iterations', iterations: 2 });
    expect(llm.calls[0]!.messages[0]).toEqual({ role: 'system', content: 'You add numbers.' });
  });

  it('rejects a failed run with the reason, and a stream ends with the same error', async () => {
    const agent = make(new ScriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] }]));
    const failure = await agent.run('Add forever').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RunFailedError);
    expect((failure as RunFailedError).message).toMatch(
      /^Agent run agent-.* failed: ScriptedModel was asked for step 2/,
    );

    const streamed = make(new ScriptedModel([{ toolCalls: [{ name: 'add', args: { a: 1, b: 1 } }] }]));
    const seen: string[] = [];
    const streamFailure = await (async () => {
      for await (const event of streamed.stream('Add forever')) seen.push(event.type);
    })().catch((e: unknown) => e);
    expect(streamFailure).toBeInstanceOf(RunFailedError);
    expect(seen).toEqual(['run_started', 'step_started', 'tool_called', 'tool_completed', 'step_started']);
  });

  it('refuses a misconfigured agent at once, saying what is wrong', () => {
    expect(() => new Agent({ llm: {} as never })).toThrow(
      /`llm` must be an AI SDK model .* or a ModelAdapter/,
    );
    expect(() => new Agent({ llm: new ScriptedModel([]), maxIterations: 0 })).toThrow(/maxIterations/);
  });
});

describe('one AgentDefinition for new Agent() and createAgentWorker', () => {
  // Fresh scripted models for each host: a model's steps are used up by the runs that read them.
  const definition = (): AgentDefinition => ({
    llm: new ScriptedModel([{ text: 'the default model' }]),
    models: {
      cheap: new ScriptedModel([{ text: 'the cheap model' }]),
      slow: new ScriptedModel([{ text: 'too late', delayMs: 10_000 }]),
    },
    timeouts: { modelStartToCloseMs: 500, modelMaxAttempts: 1 },
    quotas: { perTenant: { maxRunsPerMinute: 2 } },
  });

  /** The same runs on either host, and what a user sees of them. */
  async function exercise(
    run: (prompt: string, opts: AgentRunOptions) => Promise<AgentResult<unknown>>,
    usageStore: InMemoryUsageStore,
  ) {
    const cheap = await run('Which model?', { tenant: 'acme', model: 'cheap' });
    const fallback = await run('And now?', { tenant: 'acme' });
    const refused = await run('A third start this minute', { tenant: 'acme' }).catch((e: unknown) => e);
    const slow = await run('Take your time', { tenant: 'patient', model: 'slow' }).catch((e: unknown) => e);
    const lines = await usageStore.entries({ tenant: 'acme' });
    return {
      outputs: [cheap.output, fallback.output],
      refused: refused instanceof QuotaExceededError ? [refused.quota, refused.limit] : refused,
      slow: slow instanceof RunFailedError ? /timed out|timeout/i.test(slow.message) : slow,
      ledger: lines
        .filter((line) => line.runs === 1)
        .map((line) => line.model)
        .sort(),
    };
  }

  it('serves models, timeouts, quotas and a usageStore given to new Agent() as a worker serves them', async () => {
    const agentUsage = new InMemoryUsageStore();
    const agent = new Agent({
      ...definition(),
      usageStore: agentUsage,
      memoryStore: new InMemoryMemoryStore(),
      temporal: { address: inject('temporalAddress'), taskQueue: `facade-definition-${Date.now()}` },
    });
    const workerUsage = new InMemoryUsageStore();
    const worker = await startTestWorker({ support: definition() }, { usageStore: workerUsage });
    try {
      const onAgent = await exercise((prompt, opts) => agent.run(prompt, opts), agentUsage);
      const onWorker = await exercise(
        (prompt, opts) => worker.agents.run('support', prompt, opts),
        workerUsage,
      );
      expect(onAgent).toEqual({
        outputs: ['the cheap model', 'the default model'],
        refused: ['maxRunsPerMinute', 2],
        slow: true,
        ledger: ['cheap', 'scripted'],
      });
      expect(onWorker).toEqual(onAgent);
    } finally {
      await agent.close();
      await worker.stop();
    }
  });
});

describe('Agent without a temporal option', () => {
  it('starts the embedded server itself and stops it on close', async () => {
    const agent = new Agent({
      llm: new ScriptedModel([{ text: 'Hello from the embedded server.' }]),
      memoryStore: new InMemoryMemoryStore(),
    });
    // Before the first run: the client's first call starts the server and the worker, then answers.
    const { client, taskQueue, namespace } = agent.temporal;
    expect(taskQueue).toMatch(/^toolkit-agent-/);
    expect(namespace).toBe('default');
    const info = await client.connection.workflowService.getSystemInfo({});
    expect(info.serverVersion).toBeTruthy();
    const result = await agent.run('Say hello');
    expect(result.output).toBe('Hello from the embedded server.');
    const description = await client.workflow.getHandle(result.metadata.workflow_id).describe();
    expect(description.taskQueue).toBe(taskQueue);
    await agent.close();
    await expect(agent.run('again')).rejects.toThrow(/was closed/);
  });
});

describe('Agent skill methods', () => {
  it('lists and searches the packaged catalog with project skills, and attaches skills with addSkill', async () => {
    const llm = new ScriptedModel([{ text: 'first' }, { text: 'second' }]);
    const agent = new Agent({
      llm,
      memoryStore: new InMemoryMemoryStore(),
      skills: ['brand-voice-guide'],
      autoProjectSkills: false,
      temporal: { address: inject('temporalAddress'), taskQueue: `skills-${Date.now()}` },
    });
    try {
      const available = await agent.availableSkills();
      expect(available.map((s) => s.id)).toContain('incident-summary-writer');
      expect((await agent.searchSkills('postmortm report'))[0]?.id).toBe('incident-summary-writer');
      expect(agent.skills).toEqual(['brand-voice-guide']);

      const first = await agent.run('Write a tagline');
      expect(first.metadata.used_skills).toEqual(['brand-voice-guide']);
      expect(first.metadata.iterations).toBe(1);
      // A search result is never attached by itself.
      expect(first.metadata.used_skills).not.toContain('incident-summary-writer');

      agent.addSkill('incident-summary-writer');
      expect(agent.skills).toEqual(['brand-voice-guide', 'incident-summary-writer']);
      const second = await agent.run('Summarize the outage');
      expect(second.metadata.used_skills).toEqual(['brand-voice-guide', 'incident-summary-writer']);
      expect(llm.calls[1]!.messages[0]!.content).toContain('## Skill: Incident Summary Writer');
    } finally {
      await agent.close();
    }
  });
});

describe('Agent.chatSession', () => {
  it('keeps context between sends, streams a turn, and returns the history', async () => {
    const llm = new ScriptedModel([
      { text: 'Hello Ada.' },
      (request) => ({
        text: `You said your name is ${request.messages.some((m) => m.content.includes('Ada')) ? 'Ada' : 'unknown'}.`,
      }),
      { text: 'Goodbye.' },
    ]);
    const agent = new Agent({
      llm,
      memoryStore: new InMemoryMemoryStore(),
      autoProjectSkills: false,
      systemPrompt: 'Be brief.',
      temporal: { address: inject('temporalAddress'), taskQueue: `chat-facade-${Date.now()}` },
    });
    try {
      const chat = agent.chatSession({ sessionId: `facade-${Date.now()}` });
      expect((await chat.send('I am Ada')).output).toBe('Hello Ada.');
      expect((await chat.send('What is my name?')).output).toBe('You said your name is Ada.');
      const events = await collect(chat.stream('Bye'));
      expect(events.at(-1)).toMatchObject({ type: 'run_completed', payload: { output: 'Goodbye.' } });
      expect(await chat.history()).toEqual([
        { role: 'user', content: 'I am Ada' },
        { role: 'assistant', content: 'Hello Ada.' },
        { role: 'user', content: 'What is my name?' },
        { role: 'assistant', content: 'You said your name is Ada.' },
        { role: 'user', content: 'Bye' },
        { role: 'assistant', content: 'Goodbye.' },
      ]);
      expect(llm.calls[2]!.messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
      llm.assertAllStepsUsed();
    } finally {
      await agent.close();
    }
  });
});
