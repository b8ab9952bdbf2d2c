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

  async function run(liveText: AgentDefinition['liveText']) {
    const server = await slowWriter();
    servers.push(server);
    const llm = createOpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1` }).chat('gpt-test');
    const env = await startTestWorker({ writer: { llm, liveText } });
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
    const kinds: Record<string, number> = {};
    let signals = 0;
    for (const event of (await handle.workflow.fetchHistory()).events ?? []) {
      const kind = String(event.eventType);
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      if (event.workflowExecutionSignaledEventAttributes) signals += 1;
    }
    return {
      events,
      result,
      answersDoneAtFirstDelta,
      historySize: historySize ?? 0,
      historyLength,
      kinds,
      signals,
    };
  }

  it('streams batched text_delta events while the model writes, at a stated history cost', async () => {
    // The same run without live text is the baseline, measured in this test run; a signal per
    // written piece (1 ms batches) is what batching is compared with.
    const baseline = await run(false);
    const live = await run(true);
    const perToken = await run({ batchMs: 1 });

    const deltas = live.events.filter((e) => e.type === 'text_delta');
    expect(live.answersDoneAtFirstDelta).toBe(0); // a reader saw text before the model finished
    expect(deltas.map((e) => e.payload.text).join('')).toBe(TEXT);
    expect(live.result.output).toBe(TEXT);
    expect(baseline.events.some((e) => e.type === 'text_delta')).toBe(false);

    const cost = (measured: typeof live) => {
      const added = measured.historySize - baseline.historySize;
      // The batches are the signals (the reader hears the text live, in more pieces than batches).
      const batches = measured.signals;
      return { added, batches, perThousand: Math.round((added / TOKENS.length) * 1000) };
    };
    const batched = cost(live);
    const unbatched = cost(perToken);
    console.log(
      `live text, 200 tokens written over 2 s, one reader: history without live text ${baseline.historySize} bytes ` +
        `(${baseline.historyLength} events); 100 ms batches: ${batched.batches} batches, +${batched.added} bytes ` +
        `(${live.historyLength} events) = ${batched.perThousand} bytes per 1,000 tokens; 1 ms batches: ` +
        `${unbatched.batches} batches, +${unbatched.added} bytes = ${unbatched.perThousand} bytes per 1,000 tokens ` +
        `(${(unbatched.added / batched.added).toFixed(1)}x). Event kinds with 100 ms batches: ${JSON.stringify(live.kinds)}`,
    );
    // Batched: about one event per 100 ms of writing, never one per token.
    expect(batched.batches).toBeLessThanOrEqual(40);
    expect(
      perToken.events
        .filter((e) => e.type === 'text_delta')
        .map((e) => e.payload.text)
        .join(''),
    ).toBe(TEXT);
    // The stated bound: under 100 KB of history per 1,000 streamed tokens (a signal and its workflow
    // task per batch; the reader reads by query meanwhile), and well under a signal per piece.
    expect(batched.perThousand).toBeLessThan(100_000);
    expect(batched.added * 3).toBeLessThan(unbatched.added);
  }, 90_000);
});
