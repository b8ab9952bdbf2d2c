import { setTimeout as sleep } from 'node:timers/promises';
import { MockLanguageModelV4 } from 'ai/test';

/** Deltas an answer. */
export const TOKENS = 50;
/** Milliseconds between two deltas. */
export const INTERVAL_MS = 40;

/** Now, in epoch milliseconds with performance.now()'s resolution: comparable across processes. */
export const epochNow = () => performance.timeOrigin + performance.now();

/**
 * A streaming stand-in (the `ai` package's MockLanguageModelV4) that writes TOKENS deltas, one every
 * INTERVAL_MS, each `⟨epoch ms⟩ ` stamped as it leaves, so a reader in any process of the machine
 * can tell how long each took to reach it.
 */
export function stampingModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: new ReadableStream({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 't' });
          for (let i = 0; i < TOKENS; i++) {
            await sleep(INTERVAL_MS);
            controller.enqueue({ type: 'text-delta', id: 't', delta: `⟨${epochNow().toFixed(3)}⟩ ` });
          }
          controller.enqueue({ type: 'text-end', id: 't' });
          controller.enqueue({
            type: 'finish',
            finishReason: { unified: 'stop', raw: 'stop' },
            usage: {
              inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: TOKENS, text: TOKENS, reasoning: 0 },
            },
          });
          controller.close();
        },
      }),
    }),
  });
}
