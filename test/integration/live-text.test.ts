import { createOpenAI } from '@ai-sdk/openai';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/common/events.ts';
import type { AgentDefinition } from '../../src/worker.ts';
import { startOpenAIChatServer } from '../support/providers/openai-chat-server.ts';
import type { ProviderServer } from '../support/providers/scripted-provider.ts';
import { startTestWorker, type TestWorker } from './helpers.ts';

const TOKENS = Array.from({ length: 200 }, (_, i) => `tok${i + 1} `);
const TEXT = TOKENS.join('');

/** A provider stand-in that writes the 200 tokens over about 2 s, one per SSE chunk. */
async function slowWriter(): Promise<ProviderServer> {
  return startOpenAIChatServer([{ text: TEXT, chunks: TOKENS, chunkDelayMs: 10 }]);
}

describe('live text', () => {
  const workers: TestWorker[] = [];
  const servers: ProviderServer[] = [];
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    for (const server of servers) await server.close();
  });

  async function run(liveText: AgentDefinition['liveText'], worker: { liveChannel?: false } = {}) {
    const server = await slowWriter();
    servers.push(server);
    const llm = createOpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1` }).chat('gpt-test');
    const env = await startTestWorker({ writer: { llm, liveText } }, worker);
    workers.push(env);
    const handle = await env.agents.start('writer', 'Write 200 tokens');
    const events: AgentEvent[] = [];
    let answersDoneAtFirstDelta: number | undefined;
    for await (const event of handle.events()) {
      if (event.type === 'text_delta' && answersDoneAtFirstDelta === undefined) {
        answersDoneAtFirstDelta = server.finished;
      }
      events.push(event);
    }
    const result = await handle.result();
    const { historySize, historyLength } = await handle.workflow.describe();
    let signals = 0;
    for (const event of (await handle.workflow.fetchHistory()).events ?? []) {
      if (event.workflowExecutionSignaledEventAttributes) signals += 1;
    }
    const text = events
      .filter((e) => e.type === 'text_delta')
      .map((e) => e.payload.text)
      .join('');
    return { text, result, answersDoneAtFirstDelta, historySize: historySize ?? 0, historyLength, signals };
  }

  it('streams text to a reader through the live channel at almost no history, or in batches without one', async () => {
    // The same run without live text is the baseline, measured in this test run.
    const baseline = await run(false);
    const live = await run(true);
    const batched = await run(true, { liveChannel: false });

    const added = (measured: typeof live) => ({
      events: measured.historyLength - baseline.historyLength,
      bytesPerThousand: Math.round(((measured.historySize - baseline.historySize) / TOKENS.length) * 1000),
    });
    console.log(
      `live text, 200 tokens written over 2 s, one reader: history without live text ${baseline.historySize} bytes ` +
        `(${baseline.historyLength} events); through the live channel ${JSON.stringify(added(live))}, ` +
        `${live.signals} signals; in batches (liveChannel: false) ${JSON.stringify(added(batched))}, ` +
        `${batched.signals} signals (per 1,000 tokens)`,
    );
    expect(baseline.text).toBe('');
    for (const measured of [live, batched]) {
      expect(measured.answersDoneAtFirstDelta).toBe(0); // a reader saw text before the model finished
      expect(measured.text).toBe(TEXT);
      expect(measured.result.output).toBe(TEXT);
    }
    // Through the channel: no text batch (one signal says the run's first step started, before
    // its text; a workflow task with it), within the stated bound of at most 20 events and 40 KB
    // of history per 1,000 streamed tokens, whatever the length of the text.
    expect(live.signals).toBeLessThanOrEqual(1);
    expect(added(live).events).toBeLessThanOrEqual(4);
    expect(added(live).bytesPerThousand).toBeLessThanOrEqual(40_000);
    // Without a channel: one signal per ~100 ms batch, never one per token.
    expect(batched.signals).toBeGreaterThan(1);
    expect(batched.signals).toBeLessThanOrEqual(40);
  }, 90_000);
});
