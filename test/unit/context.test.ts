import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/common/messages.ts';
import { compactConversation } from '../../src/context/compact.ts';
import {
  contextSettings,
  defaultMaxInputTokens,
  DEFAULT_MAX_INPUT_TOKENS,
} from '../../src/context/options.ts';
import { parsePromptTooLong } from '../../src/context/overflow.ts';
import { planCut } from '../../src/context/policy.ts';
import { requestUnits } from '../../src/context/estimate.ts';
import { StepContext } from '../../src/context/step-context.ts';
import { readCalibration, readSummary } from '../../src/context/store.ts';
import { buildView } from '../../src/context/view.ts';
import { ContextOverflowError } from '../../src/errors.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { classifyModelError } from '../../src/models/model-errors.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';

/** A conversation of `turns` turns; every turn calls a tool twice (one large result) and answers. */
function conversation(turns: number, resultChars = 3_000): Message[] {
  const messages: Message[] = [{ role: 'system', content: 'You are terse.' }];
  for (let t = 1; t <= turns; t++) {
    messages.push({ role: 'user', content: `question ${t}` });
    messages.push({
      role: 'assistant',
      content: '',
      toolCalls: [
        { id: `a${t}`, name: 'read', args: { page: t } },
        { id: `b${t}`, name: 'add', args: { a: t, b: 1 } },
      ],
      providerData: {
        reasoning: [{ text: `thinking ${t}`, providerOptions: { anthropic: { signature: `sig${t}` } } }],
      },
    });
    messages.push({
      role: 'tool',
      toolCallId: `a${t}`,
      toolName: 'read',
      content: `page ${t} `.padEnd(resultChars, 'x'),
    });
    messages.push({ role: 'tool', toolCallId: `b${t}`, toolName: 'add', content: String(t + 1) });
    messages.push({ role: 'assistant', content: `answer ${t}` });
  }
  return messages;
}

/** Every tool call in `messages` is followed by its result before the next non-tool message, and vice versa. */
function assertPaired(messages: Message[]): void {
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'assistant' && message.toolCalls?.length) {
      const results = [];
      for (let j = i + 1; messages[j]?.role === 'tool'; j++)
        results.push((messages[j] as { toolCallId: string }).toolCallId);
      expect(results).toEqual(message.toolCalls.map((call) => call.id));
    }
    if (message.role === 'tool') {
      let owner = i - 1;
      while (messages[owner]?.role === 'tool') owner -= 1;
      const calls = (messages[owner] as { toolCalls?: Array<{ id: string }> }).toolCalls ?? [];
      expect(calls.map((call) => call.id)).toContain(message.toolCallId);
    }
  }
}

describe('provider "prompt too long" bodies', () => {
  it('reads the numbers out of each provider’s real error text', () => {
    expect(
      parsePromptTooLong(
        '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 208163 tokens > 200000 maximum"}}',
      ),
    ).toEqual({ tokens: 208163, limit: 200000 });
    expect(
      parsePromptTooLong(
        '{"error":{"message":"This model\'s maximum context length is 128000 tokens. However, your messages resulted in 130415 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}',
      ),
    ).toEqual({ tokens: 130415, limit: 128000 });
    expect(
      parsePromptTooLong(
        "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
      ),
    ).toEqual({ tokens: 4000, limit: 4096 });
    expect(
      parsePromptTooLong(
        '{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}',
      ),
    ).toEqual({});
    expect(
      parsePromptTooLong(
        'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      ),
    ).toEqual({ tokens: 1200000, limit: 1048576 });
    expect(parsePromptTooLong('the request exceeds the available context size, try increasing it')).toEqual(
      {},
    );
    expect(parsePromptTooLong('max_tokens: must be positive')).toBeUndefined();
  });

  it('turns a 400 with such a body into a ContextOverflowError, and leaves other 400s alone', () => {
    const tooLong = new APICallError({
      message: 'Bad Request',
      url: 'https://api.anthropic.com/v1/messages',
      requestBodyValues: {},
      statusCode: 400,
      responseBody:
        '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 5000 tokens > 4000 maximum"}}',
    });
    const error = classifyModelError(tooLong, 'anthropic:claude') as ContextOverflowError;
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect([error.tokens, error.limit, error.retryable]).toEqual([5000, 4000, false]);
    const other = new APICallError({
      ...tooLong,
      message: 'Bad Request',
      url: '',
      requestBodyValues: {},
      statusCode: 400,
      responseBody: '{"error":{"message":"max_tokens: must be positive"}}',
    });
    expect(classifyModelError(other, 'anthropic:claude')).not.toBeInstanceOf(ContextOverflowError);
  });
});

describe('budget defaults', () => {
  it('come from the model family minus the answer’s reserve, the adapter’s own figure, else a conservative default', () => {
    expect(defaultMaxInputTokens({ modelId: 'anthropic.messages:claude-sonnet-4-5' })).toBe(168_000);
    expect(defaultMaxInputTokens({ modelId: 'openai.chat:gpt-4o-mini' })).toBe(111_616);
    expect(defaultMaxInputTokens({ modelId: 'openai.responses:gpt-5' })).toBe(272_000);
    expect(defaultMaxInputTokens({ modelId: 'google.generative-ai:gemini-2.5-pro' })).toBe(983_040);
    expect(defaultMaxInputTokens({ modelId: 'local:gemma-3-270m.gguf', maxInputTokens: 3840 })).toBe(3840);
    expect(defaultMaxInputTokens({ modelId: 'scripted' })).toBe(DEFAULT_MAX_INPUT_TOKENS);
    expect(contextSettings({ maxInputTokens: 900 }, { modelId: 'x' })).toMatchObject({
      maxInputTokens: 900,
      keepRecentTurns: 10,
      compaction: 'summarize',
    });
  });
});

describe('the view of a conversation', () => {
  it('is the whole conversation while it fits', () => {
    const stored = conversation(3);
    const view = buildView({ stored, tools: [], ratio: 1, budget: 100_000 });
    expect(view.messages).toEqual(stored);
    expect(view.dropped).toBe(0);
  });

  it('first leaves out the bodies of old large tool results, oldest first, never the latest step’s', () => {
    const stored = conversation(4).slice(0, -1); // the last turn ends with its tool results
    const full = buildView({ stored, tools: [], ratio: 1, budget: Infinity }).tokens;
    const view = buildView({ stored, tools: [], ratio: 1, budget: full - 1_000 });
    expect(view.dropped).toBe(2);
    expect(view.tokens).toBeLessThanOrEqual(full - 1_000);
    const reads = view.messages.filter((m) => m.role === 'tool' && m.toolName === 'read');
    expect(reads.map((m) => m.content.length < 300)).toEqual([true, true, false, false]);
    expect(reads[0]!.content).toMatch(
      /^\[read result left out to save context: 3000 characters, beginning "page 1/,
    );
    const latest = buildView({ stored, tools: [], ratio: 1, budget: 0 });
    expect(latest.dropped).toBe(3);
    expect(latest.messages.at(-2)!.content).toHaveLength(3_000);
    assertPaired(latest.messages);
  });

  it('after a compaction: system prompt, summary, the current turn’s prompt when cut inside it, then whole steps', () => {
    const stored = conversation(3);
    const summary = {
      throughSeq: 12,
      text: 'Earlier: two questions answered.',
      mode: 'summarize' as const,
      compactions: 1,
      messages: 11,
    };
    const view = buildView({ stored, summary, tools: [], ratio: 1, budget: Infinity });
    expect(stored[12]!.role).toBe('assistant');
    expect(view.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
    ]);
    expect(view.messages[1]!.content).toMatch(
      /^Summary of the earlier part.*\n\nEarlier: two questions answered\.$/s,
    );
    expect(view.messages[2]).toEqual({ role: 'user', content: 'question 3' });
    assertPaired(view.messages);
  });
});

describe('where a compaction cuts', () => {
  const base = { tools: [], ratio: 1, force: false };

  it('keeps at most keepRecentTurns whole turns, within half the budget', () => {
    const stored = conversation(20, 100);
    const cut = planCut({ ...base, stored, maxInputTokens: 100_000, keepRecentTurns: 3 })!;
    expect(stored[cut]).toEqual({ role: 'user', content: 'question 18' });
    const tight = planCut({ ...base, stored, maxInputTokens: 400, keepRecentTurns: 10 })!;
    expect(stored[tight]!.role).toBe('user');
    expect(tight).toBeGreaterThan(cut);
    const view = buildView({
      stored,
      summary: { throughSeq: tight, text: 's', mode: 'summarize', compactions: 1, messages: 0 },
      tools: [],
      ratio: 1,
      budget: 400,
    });
    expect(view.tokens).toBeLessThanOrEqual(200);
  });

  it('cuts inside a turn that alone is too large, before one of its steps, and never after the latest', () => {
    const stored: Message[] = [
      { role: 'system', content: 's' },
      { role: 'user', content: 'read all pages' },
    ];
    for (let i = 1; i <= 8; i++) {
      stored.push({
        role: 'assistant',
        content: '',
        toolCalls: [{ id: `c${i}`, name: 'read', args: { page: i } }],
      });
      stored.push({
        role: 'tool',
        toolCallId: `c${i}`,
        toolName: 'read',
        content: `page ${i} `.padEnd(1_500, 'y'),
      });
    }
    for (const maxInputTokens of [2_000, 800, 300]) {
      const cut = planCut({ ...base, stored, maxInputTokens, keepRecentTurns: 10 })!;
      expect(stored[cut]!.role).toBe('assistant');
      expect(cut).toBeLessThanOrEqual(stored.length - 2);
      const view = buildView({
        stored,
        summary: { throughSeq: cut, text: 'x', mode: 'summarize', compactions: 1, messages: 0 },
        tools: [],
        ratio: 1,
        budget: Infinity,
      });
      expect(view.messages[2]).toEqual({ role: 'user', content: 'read all pages' });
      assertPaired(view.messages);
    }
    expect(
      planCut({ ...base, stored: stored.slice(0, 2), maxInputTokens: 300, keepRecentTurns: 10 }),
    ).toBeUndefined();
  });
});

describe('a compaction', () => {
  it('summarizes the oldest turns onto the previous summary and stores it beside the conversation, which stays as it was', async () => {
    const store = new InMemoryMemoryStore();
    const stored = conversation(30, 200);
    await store.append('c1', 0, stored);
    const model = new ScriptedModel([
      (request) => {
        expect(request.tools).toEqual([]);
        expect(request.messages[0]).toEqual({ role: 'system', content: 'SUMMARIZE' });
        expect(JSON.stringify(request.messages)).not.toContain('sig1'); // no provider data in a summary request
        return {
          text: `summary of ${request.messages[1]!.content.split('\n').filter((l) => l.startsWith('User:')).length} questions`,
        };
      },
    ]);
    const settings = contextSettings(
      { maxInputTokens: 8_000, keepRecentTurns: 5, summaryPrompt: 'SUMMARIZE' },
      model,
    );
    const result = await compactConversation({
      store,
      model,
      settings,
      conversationId: 'c1',
      seq: stored.length,
      tools: [],
      force: false,
      attempt: { writer: 'run-1/1', attempt: 1 },
    });
    expect(result).toMatchObject({ mode: 'summarize', compactions: 1, model_calls: 1 });
    expect(result.after_tokens).toBeLessThan(result.before_tokens / 2);
    const summary = (await readSummary(store, 'c1'))!;
    expect(summary.text).toMatch(/^summary of \d+ questions$/);
    expect(result.messages_summarized).toBe(summary.throughSeq - 1);
    expect(await store.read('c1')).toEqual(stored);
    model.assertAllStepsUsed();

    const truncate = contextSettings({ maxInputTokens: 1_000, compaction: 'truncate' }, model);
    const again = await compactConversation({
      store,
      model,
      settings: truncate,
      conversationId: 'c1',
      seq: stored.length,
      tools: [],
      force: true,
      attempt: { writer: 'run-1/2', attempt: 1 },
    });
    expect(again).toMatchObject({ mode: 'truncate', compactions: 2, model_calls: 0 });
    expect((await readSummary(store, 'c1'))!.throughSeq).toBeGreaterThan(summary.throughSeq);
  });

  it('summarizes a transcript larger than one request in parts, each carrying the summary so far', async () => {
    const store = new InMemoryMemoryStore();
    const stored = conversation(60, 1_500);
    await store.append('c2', 0, stored);
    const model = new ScriptedModel(
      Array.from({ length: 40 }, (_, i) => () => ({ text: `summary part ${i + 1}` })),
    );
    const settings = contextSettings({ maxInputTokens: 3_000, keepRecentTurns: 2 }, model);
    const result = await compactConversation({
      store,
      model,
      settings,
      conversationId: 'c2',
      seq: stored.length,
      tools: [],
      force: false,
      attempt: { writer: 'run-2/1', attempt: 1 },
    });
    expect(result.model_calls).toBeGreaterThan(1);
    expect(
      model.calls
        .slice(1)
        .every((call) => call.messages[1]!.content.startsWith('The summary so far:\nsummary part')),
    ).toBe(true);
    for (const call of model.calls) expect(JSON.stringify(call.messages).length / 4).toBeLessThan(3_000);
  });
});

describe('the calibration a model step writes', () => {
  it('is never replaced by a frozen attempt of an earlier step; a later attempt of the same step may', async () => {
    const store = new InMemoryMemoryStore();
    await store.append('cal', 0, conversation(2, 400));
    const model = new ScriptedModel([]);
    const step = (seq: number, attempt: number) =>
      StepContext.load({
        context: { maxInputTokens: 100_000 },
        store,
        model,
        conversationId: 'cal',
        seq,
        tools: [],
        attempt: { writer: 'run-1/activity', attempt },
      });
    const usage = (input_tokens: number) => ({
      input_tokens,
      output_tokens: 1,
      total_tokens: input_tokens + 1,
    });

    // Counts in proportion to what the step sent, so that each one calibrates a ratio of its own.
    const units = requestUnits((await store.read('cal')).slice(0, 3), []);
    await (await step(3, 1)).settle(usage(Math.round(units * 1.5)));
    const latest = (await readCalibration(store, 'cal'))!;
    expect(latest.ratio).toBeGreaterThan(0);

    // The first step's attempt froze before it settled, was retried, and wakes now with its own count.
    await (await step(1, 1)).settle(usage(1));
    expect(await readCalibration(store, 'cal')).toEqual(latest);

    // A retry of the latest step writes over its earlier attempt.
    await (await step(3, 2)).settle(usage(Math.round(units * 2.5)));
    expect((await readCalibration(store, 'cal'))!.ratio).not.toBe(latest.ratio);
  });
});
