import { afterAll, describe, expect, expectTypeOf, inject, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { OutputValidationError } from '../../src/errors.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import type { JsonSchema } from '../../src/output/schema.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../../src/tools/connector-base.ts';
import { collect, historyText, startTestWorker, type TestWorker } from './helpers.ts';

const CANARY = 'sk-canary-structured-41c7e2';

const Triage = z.object({
  priority: z.enum(['low', 'medium', 'high']),
  team: z.string(),
  summary: z.string(),
});
const TRIAGE = { priority: 'high', team: 'billing', summary: 'Invoices fail since 09:00.' } as const;

/** Reads a ticket from a service with a bearer token; the text it returns echoes the token. */
class TicketTool extends BaseConnectorTool {
  readonly name = 'read_ticket';
  readonly description = 'Reads a support ticket';
  readonly parameters = z.object({ id: z.number() });
  protected override readonly defaultCredentialKey = 'tickets';
  async run(context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const { token } = await this.getCredential(context);
    return {
      text: `ticket ${String(args.id)}: "Invoices fail since 09:00" (read with ${token})`,
      metadata: {},
    };
  }
}

describe('structured output (typed results)', () => {
  const workers: TestWorker[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
  });

  async function worker(llm: ScriptedModel, extra: Record<string, unknown> = {}) {
    const credentialStore = new InMemoryCredentialStore();
    await credentialStore.put({ name: 'tickets', type: 'bearer', token: CANARY });
    const env = await startTestWorker({
      triage: { llm, tools: [new TicketTool()], credentialStore, ...extra },
    });
    workers.push(env);
    return env;
  }

  it('calls a tool, then answers with the object: typed result, run_completed and partial_output carry it, no secret in history', async () => {
    const llm = new ScriptedModel([
      { toolCalls: [{ name: 'read_ticket', args: { id: 7 } }] },
      { object: TRIAGE },
    ]);
    const env = await worker(llm);
    const handle = await env.agents.start('triage', 'Triage ticket 7', { output: Triage });
    const events = await collect(handle.events());
    const result = await handle.result();

    expectTypeOf(result.output).toEqualTypeOf<z.output<typeof Triage>>();
    expect(result.output).toEqual(TRIAGE);
    expect(result.metadata).toMatchObject({
      stop_reason: 'completed',
      iterations: 2,
      output_repairs: 0,
      text: JSON.stringify(TRIAGE),
    });
    // Only the JSON Schema reached the model step, on every step; tools and output in the same run.
    expect(llm.calls.map((call) => call.output?.schema)).toEqual([
      z.toJSONSchema(Triage),
      z.toJSONSchema(Triage),
    ]);
    expect(llm.calls[0]!.tools.map((tool) => tool.function.name)).toEqual(['read_ticket']);
    const types = events.map((e) => e.type).filter((type) => type !== 'text_delta');
    expect(types).toEqual([
      'run_started',
      'step_started',
      'tool_called',
      'tool_completed',
      'step_started',
      'partial_output',
      'run_completed',
    ]);
    expect(events.find((e) => e.type === 'partial_output')?.payload.output).toEqual(TRIAGE);
    expect(events.at(-1)!.payload).toMatchObject({ output: TRIAGE, stop_reason: 'completed' });

    const history = await historyText(handle.workflow);
    expect(history).toContain('read_ticket'); // the scan reads decoded payloads
    const stored = JSON.stringify(await env.memoryStore.read(handle.workflowId));
    for (const text of [history, JSON.stringify(events), stored]) expect(text).not.toContain(CANARY);
    llm.assertAllStepsUsed();
  });

  it('sends an answer with a wrong field type back once with its path, then succeeds', async () => {
    const llm = new ScriptedModel([{ object: { ...TRIAGE, priority: 3 } }, { object: TRIAGE }]);
    const env = await worker(llm);
    const result = await env.agents.run('triage', 'Triage ticket 8', { output: Triage });

    expect(result.output).toEqual(TRIAGE);
    expect(result.metadata).toMatchObject({ stop_reason: 'completed', iterations: 2, output_repairs: 1 });
    // The repair is an ordinary message of the stored conversation: the model saw the path and what to do.
    const repair = llm.calls[1]!.messages.at(-1)!;
    expect(repair.role).toBe('user');
    expect(repair.content).toMatch(/repair 1 of 2/);
    expect(repair.content).toMatch(/- priority: Invalid option/);
    const stored = await env.memoryStore.read(result.metadata.workflow_id);
    expect(stored.map((m) => m.role).slice(-4)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('ends with invalid_output after exactly 1 + outputRepairs answering steps, keeping every answer', async () => {
    const wrong = { priority: 'urgent', team: 42 };
    const llm = new ScriptedModel([{ object: wrong }, { text: 'Sorry, here: not json' }, { object: wrong }]);
    const env = await worker(llm);
    const handle = await env.agents.start('triage', 'Triage ticket 9', { output: Triage, outputRepairs: 2 });
    const events = await collect(handle.events());
    const error = await handle.result().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(OutputValidationError);
    const failure = error as OutputValidationError;
    expect(failure.code).toBe('INVALID_OUTPUT');
    expect(failure.paths).toEqual(['priority', 'team', 'summary']);
    expect(failure.raw).toBe(JSON.stringify(wrong));
    expect(failure.attempts).toBe(3);
    expect(failure.message).toMatch(/after 3 attempt\(s\).*priority/);
    expect(llm.calls).toHaveLength(3);
    llm.assertAllStepsUsed();
    expect(llm.calls[2]!.messages.at(-1)!.content).toMatch(/\(the whole answer\): not valid JSON/);
    expect(events.at(-1)).toMatchObject({
      type: 'run_completed',
      payload: { stop_reason: 'invalid_output', output_error: { code: 'INVALID_OUTPUT', attempts: 3 } },
    });
    // Nothing lost: the three answers and the two repair messages are in the stored conversation.
    const stored = await env.memoryStore.read(handle.workflowId);
    expect(stored.filter((m) => m.role === 'assistant')).toHaveLength(3);
    expect(stored.filter((m) => m.role === 'user' && /repair \d of 2/.test(m.content))).toHaveLength(2);
  });

  it('takes the agent definition’s JSON Schema when the run names none, and a run’s own outputRepairs', async () => {
    const schema: JsonSchema<{ ok: boolean }> = {
      type: 'object',
      properties: { ok: { type: 'boolean' } },
      required: ['ok'],
    };
    const llm = new ScriptedModel([{ object: { ok: 'yes' } }]);
    const env = await worker(llm, { output: schema, outputRepairs: 3 });
    const error = await env.agents
      .getHandle<{ ok: boolean }>(
        (await env.agents.start('triage', 'Is it ok?', { outputRepairs: 0 })).workflowId,
      )
      .result()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutputValidationError);
    expect((error as OutputValidationError).paths).toEqual(['ok']);
    expect(llm.calls[0]!.output?.schema).toEqual(schema);
  });

  it('answers a chat turn with an object, and the next turn in text', async () => {
    const llm = new ScriptedModel([{ object: TRIAGE }, { text: 'You are welcome.' }]);
    const env = await worker(llm);
    const session = env.agents.chatSession('triage', { memoryStore: env.memoryStore });
    const first = await session.send('Triage ticket 10', { output: Triage });
    expectTypeOf(first.output).toEqualTypeOf<z.output<typeof Triage>>();
    expect(first).toMatchObject({ turn: 1, output: TRIAGE });
    const second = await session.send('Thanks');
    expect(second).toMatchObject({ turn: 2, output: 'You are welcome.' });
    expect(llm.calls[1]!.output).toBeUndefined();
  });

  it('gives a DeepAgent run’s executed answer the schema; the plan and the check stay text', async () => {
    const llm = new ScriptedModel([
      { text: '1. Read the ticket. 2. Triage it.' },
      { object: TRIAGE },
      { text: 'PASS' },
    ]);
    const env = await worker(llm);
    const handle = await env.agents.start('triage', 'Triage ticket 11', {
      output: Triage,
      deep: { verify: true },
    });
    const result = await handle.result();
    expect(result.output).toEqual(TRIAGE);
    expect(llm.calls.map((call) => call.output !== undefined)).toEqual([false, true, false]);
    expect(llm.calls[2]!.messages.at(-1)!.content).toContain(JSON.stringify(TRIAGE));
    expect((result.metadata as { verification?: unknown }).verification).toMatchObject({ verdict: 'pass' });
  });

  it('refuses an output that is not a schema, naming the option', async () => {
    const env = workers[0]!;
    await expect(env.agents.start('triage', 'x', { output: 'priority' as never })).rejects.toThrow(
      /`output` must be a zod schema/,
    );
    await expect(env.agents.start('triage', 'x', { output: Triage, outputRepairs: -1 })).rejects.toThrow(
      /outputRepairs/,
    );
  });
});

describe('structured output from the Agent facade', () => {
  it('types run() from the agent’s schema, lets a run name its own, and gives chat turns the agent’s', async () => {
    const llm = new ScriptedModel([
      { object: TRIAGE },
      { object: ['a', 'b'] },
      { object: { ...TRIAGE, priority: 'low' } },
    ]);
    const agent = new Agent({
      llm,
      output: Triage,
      memoryStore: new InMemoryMemoryStore(),
      autoProjectSkills: false,
      temporal: { address: inject('temporalAddress'), taskQueue: `structured-facade-${Date.now()}` },
    });
    try {
      const events: string[] = [];
      for await (const event of agent.stream('Triage ticket 12')) events.push(event.type);
      expect(events).toContain('partial_output');
      const Tags = z.array(z.string());
      const tags = await agent.run('Tags of ticket 12?', { output: Tags });
      expectTypeOf(tags.output).toEqualTypeOf<string[]>();
      expect(tags.output).toEqual(['a', 'b']);
      expect(llm.calls[1]!.output?.schema).toEqual(z.toJSONSchema(Tags));
      const turn = await agent.chatSession().send('Triage ticket 13');
      expect(turn.output).toEqual({ ...TRIAGE, priority: 'low' });
      llm.assertAllStepsUsed();
    } finally {
      await agent.close();
    }
    expectTypeOf<Awaited<ReturnType<Agent<typeof Triage>['run']>>['output']>().toEqualTypeOf<
      z.output<typeof Triage>
    >();
  });
});
