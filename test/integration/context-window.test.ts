import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EVENTS_QUERY, type AgentEvent } from '../../src/common/events.ts';
import type { ChatTurnResult } from '../../src/common/chat.ts';
import { RunFailedError } from '../../src/errors.ts';
import { aiSdkModel, type LanguageModel } from '../../src/models/ai-sdk.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';
import { startAnthropicServer } from '../support/providers/anthropic-server.ts';
import { startOpenAIChatServer } from '../support/providers/openai-chat-server.ts';
import { FACT_SUMMARY_PROMPT, isSummaryRequest, readingModel } from '../support/providers/reading-model.ts';
import type { ContextLimit, ProviderScript, ProviderServer } from '../support/providers/scripted-provider.ts';
import { historyText, startTestWorker, type TestWorker } from './helpers.ts';
import { AddTool } from './tools.ts';

const API_KEY = 'sk-context-test';

const providers: Array<{
  name: string;
  start(turns: ProviderScript, limit?: ContextLimit): Promise<ProviderServer>;
  model(server: ProviderServer): LanguageModel;
}> = [
  {
    name: 'Anthropic',
    start: startAnthropicServer,
    model: (server) => createAnthropic({ apiKey: API_KEY, baseURL: `${server.url}/v1` })('claude-test'),
  },
  {
    name: 'OpenAI chat',
    start: startOpenAIChatServer,
    model: (server) => createOpenAI({ apiKey: API_KEY, baseURL: `${server.url}/v1` }).chat('gpt-test'),
  },
];

/** A page of text, as a file read or search returns it. */
class PageTool extends BaseConnectorTool {
  readonly name = 'read_page';
  readonly description = 'Reads one page';
  readonly parameters = z.object({ page: z.number() });
  async run(_context: unknown, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: `page ${String(args.page)} `.padEnd(3_000, 'lorem ipsum '), metadata: {} };
  }
}

const stoppers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const stop of stoppers.reverse()) await stop();
});

async function start(
  provider: (typeof providers)[number],
  script: ProviderScript,
  limit: ContextLimit | undefined,
  agent: Record<string, unknown>,
  thinking = false,
): Promise<{ server: ProviderServer; env: TestWorker }> {
  const server = await provider.start(script, limit);
  stoppers.push(() => server.close());
  const model = provider.model(server);
  const llm = thinking
    ? aiSdkModel(model, {
        callOptions: {
          maxOutputTokens: 4096,
          providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
        },
      })
    : model;
  const env = await startTestWorker({ agent: { llm, ...agent } });
  stoppers.push(() => env.stop());
  return { server, env };
}

/**
 * The events of the session's runs (each turn's result names its run): read by run id, because a
 * session continues as new under these tests' low history limit.
 */
async function sessionEvents(
  env: TestWorker,
  workflowId: string,
  results: Array<{ metadata: { run_id: string } }>,
) {
  const events: AgentEvent[] = [];
  for (const runId of new Set(results.map((result) => result.metadata.run_id))) {
    const handle = env.client.workflow.getHandle(workflowId, runId);
    events.push(...(await handle.query<AgentEvent[], [number]>(EVENTS_QUERY, 0)));
  }
  return events;
}

const forever = (answer: ProviderScript[number]): ProviderScript =>
  Array.from({ length: 2_000 }, () => answer);

describe('a session longer than the model’s context window', () => {
  // 100 turns against a window that fits about 20 of them: several compactions, each summary
  // built on the one before, and the session continues as new several times on the way.
  const TURNS = 100;
  it('keeps every request under a hard limit for 100 turns and finds turn 1’s fact in the summary at turn 100', async () => {
    const { server, env } = await start(
      providers[0]!,
      forever(readingModel),
      { maxInputTokens: 2_400 },
      {
        context: { maxInputTokens: 2_100, keepRecentTurns: 10, summaryPrompt: FACT_SUMMARY_PROMPT },
      },
    );
    const chat = env.agents.chatSession('agent', { sessionId: randomUUID(), memoryStore: env.memoryStore });
    const prompts = ['Please remember this FACT: the vault code is 4817.'];
    for (let turn = 2; turn < TURNS; turn++)
      prompts.push(`Turn ${turn}: let us chat about topic number ${turn}, nothing important.`);
    prompts.push('What is the vault code I told you about?');
    const results: ChatTurnResult[] = [];
    for (const [i, prompt] of prompts.entries()) {
      const result = await chat.send(prompt);
      results.push(result);
      expect(result.turn).toBe(i + 1);
      if (i < TURNS - 1) expect(result.output).toBe(`Noted: ${prompt.slice(0, 40)}`);
    }
    const last = results.at(-1)!;
    // The session continued as new on the way: the compacted context crossed into new runs.
    expect(new Set(results.map((result) => result.metadata.run_id)).size).toBeGreaterThan(1);
    expect(last.output).toBe('The vault code is 4817.');

    // Every request fitted: the provider never refused one.
    expect(server.statuses.every((status) => status === 200)).toBe(true);
    expect(Math.max(...server.inputTokens)).toBeLessThanOrEqual(2_400);
    // The answer came from the summary: turn 1 itself was no longer in the request.
    const final = JSON.stringify(server.bodies.at(-1)!.messages);
    expect(final).not.toContain('Please remember this FACT');
    expect(final).toContain('FACT: the vault code is 4817.');
    expect(final).toContain('Summary of the earlier part of this conversation');

    const summaries = server.bodies.filter(isSummaryRequest).length;
    const { context } = last.metadata;
    expect(context).toMatchObject({ max_input_tokens: 2_100 });
    expect(context!.compactions).toBeGreaterThanOrEqual(4);
    expect(summaries).toBeGreaterThanOrEqual(context!.compactions);
    expect(context!.input_tokens).toBeLessThanOrEqual(2_100);
    expect(summaries).toBeLessThanOrEqual(TURNS / 10); // at most one extra model call per 10 turns
    console.log(
      `${TURNS} turns: ${context!.compactions} compactions in ${summaries} model calls; largest request ${Math.max(...server.inputTokens)} of 2400 tokens; ` +
        `last step ${context!.input_tokens} input tokens (estimated ${context!.estimated_input_tokens})`,
    );

    // history() still has every message of every turn, in order.
    const history = await chat.history();
    expect(history).toHaveLength(2 * TURNS);
    expect(history.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(prompts);
    expect(history.map((m) => m.role)).toEqual(prompts.flatMap(() => ['user', 'assistant']));
    // The summary lives in the memory store, not in workflow history.
    expect(await historyText(env.client.workflow.getHandle(chat.workflowId))).not.toContain(
      'The rest was small talk',
    );
  }, 240_000);
});

describe.each(providers)('$name: pairing survives compaction', (provider) => {
  it('every request after compaction is accepted by a server that rejects unpaired tool results', async () => {
    const thinking = provider.name === 'Anthropic';
    let step = 0;
    let ids = 0;
    const script = forever((body) => {
      if (isSummaryRequest(body)) return { text: 'Pages were read and numbers added.' };
      if (step++ % 5 === 4) return { text: 'Done.', ...(thinking ? { thinking: 'All read.' } : {}) };
      ids += 2;
      return {
        ...(thinking ? { thinking: `Read page ${ids}.` } : {}),
        toolCalls: [
          { id: `call_${ids - 1}`, name: 'read_page', args: { page: ids - 1 } },
          { id: `call_${ids}`, name: 'add', args: { a: ids, b: 1 } },
        ],
      };
    });
    const { server, env } = await start(
      provider,
      script,
      { maxInputTokens: 2_600 },
      {
        tools: [new PageTool(), new AddTool()],
        maxIterations: 5,
        context: { maxInputTokens: 2_300, keepRecentTurns: 2, summaryPrompt: FACT_SUMMARY_PROMPT },
      },
      thinking,
    );
    const chat = env.agents.chatSession('agent', { sessionId: randomUUID(), memoryStore: env.memoryStore });
    const results: ChatTurnResult[] = [];
    for (let turn = 1; turn <= 3; turn++) {
      results.push(await chat.send(`Read the next pages (${turn}).`));
      expect(results.at(-1)).toMatchObject({ output: 'Done.', metadata: { stop_reason: 'completed' } });
    }
    const events = await sessionEvents(env, chat.workflowId, results);
    expect(server.statuses.every((status) => status === 200)).toBe(true);
    const compactions = events.filter((e) => e.type === 'context_compacted');
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions[0]!.payload).toMatchObject({ mode: 'summarize', reason: 'over_budget' });
    expect(compactions[0]!.payload.after_tokens).toBeLessThan(
      compactions[0]!.payload.before_tokens as number,
    );
    // Old large results went first, as a one-line note.
    expect(
      server.bodies.some((body) => JSON.stringify(body).includes('result left out to save context')),
    ).toBe(true);
    // Some requests were cut inside a turn: summary and the turn's prompt, then whole steps.
    const cutInsideTurn = server.bodies.filter((body) => {
      const messages = (body.messages as Array<{ role: string }>).filter((m) => m.role !== 'system');
      const head = JSON.stringify(
        messages.slice(
          0,
          messages.findIndex((m) => m.role === 'assistant'),
        ),
      );
      return head.includes('Summary of the earlier part') && head.includes('Read the next pages');
    });
    expect(cutInsideTurn.length).toBeGreaterThan(0);
    const history = await chat.history();
    expect(history).toHaveLength(3 * 14);
    expect(
      history.filter((m) => m.content.startsWith('page ')).every((m) => m.content.length === 3_000),
    ).toBe(true);
  }, 120_000);
});

describe.each(providers)('$name: "prompt too long" from the provider', (provider) => {
  it('compacts and retries the step, and learns the limit so it is not refused again', async () => {
    const { server, env } = await start(
      provider,
      forever(readingModel),
      { maxInputTokens: 1_500 },
      {
        context: { maxInputTokens: 50_000, summaryPrompt: FACT_SUMMARY_PROMPT },
      },
    );
    const chat = env.agents.chatSession('agent', { sessionId: randomUUID(), memoryStore: env.memoryStore });
    const results: ChatTurnResult[] = [];
    for (let turn = 1; turn <= 24; turn++) {
      const prompt =
        turn === 1
          ? 'FACT: the vault code is 5521.'
          : `Turn ${turn}: ${'some words to fill the window '.repeat(4)}`;
      results.push(await chat.send(prompt));
    }
    const answer = await chat.send('What is the vault code?');
    const events = await sessionEvents(env, chat.workflowId, results);
    expect(answer.output).toBe('The vault code is 5521.');
    expect(server.statuses.filter((status) => status === 400)).toHaveLength(1);
    const refused = server.statuses.indexOf(400);
    expect(isSummaryRequest(server.bodies[refused + 1]!)).toBe(true);
    expect(server.statuses[refused + 2]).toBe(200);
    const compactions = events.filter((e) => e.type === 'context_compacted').map((e) => e.payload.reason);
    expect(compactions[0]).toBe('prompt_too_long');
    expect(compactions.slice(1).every((reason) => reason === 'over_budget')).toBe(true);
    expect(answer.metadata.context!.max_input_tokens).toBe(1_350);
  }, 120_000);
});

describe('what cannot be made to fit, and truncation', () => {
  it('fails the run with an error that names the budget when even the compacted request is too long', async () => {
    const { server, env } = await start(providers[0]!, forever(readingModel), { maxInputTokens: 1_000 }, {});
    const failure = await env.agents.run('agent', `Read this: ${'x'.repeat(6_000)}`).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(RunFailedError);
    expect((failure as Error).message).toMatch(
      /does not fit the model's context window even after compacting it.*context\.maxInputTokens.*prompt is too long/s,
    );
    expect(server.statuses).toEqual([400, 400]);
  });

  it('with truncate, drops the oldest turns without any extra model call', async () => {
    const llm = new ScriptedModel(
      Array.from({ length: 30 }, () => (request: { messages: Array<{ role: string; content: string }> }) => ({
        text: `seen ${request.messages.length} messages`,
      })),
    );
    const env = await startTestWorker({
      truncating: { llm, context: { maxInputTokens: 400, compaction: 'truncate', keepRecentTurns: 3 } },
    });
    stoppers.push(() => env.stop());
    const chat = env.agents.chatSession('truncating', {
      sessionId: randomUUID(),
      memoryStore: env.memoryStore,
    });
    const results: ChatTurnResult[] = [];
    for (let turn = 1; turn <= 30; turn++)
      results.push(await chat.send(`Turn ${turn}: ${'words '.repeat(20)}`));
    const events = await sessionEvents(env, chat.workflowId, results);
    expect(llm.calls).toHaveLength(30);
    const truncations = events.filter((e) => e.type === 'context_compacted');
    expect(truncations.length).toBeGreaterThan(0);
    expect(truncations.every((e) => e.payload.mode === 'truncate' && e.payload.model_calls === 0)).toBe(true);
    expect(llm.calls.at(-1)!.messages[1]!.content).toMatch(
      /earliest messages of this conversation were dropped/,
    );
    expect(llm.calls.every((call) => JSON.stringify(call.messages).length / 4 < 400)).toBe(true);
    expect(await chat.history()).toHaveLength(60);
  });
});
