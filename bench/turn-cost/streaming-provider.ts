import type { LanguageModelV4, LanguageModelV4StreamPart, ProviderV4 } from '@ai-sdk/provider';
import { languageModelProvider } from '../language-model-provider.ts';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1_000, text: 1_000, reasoning: undefined },
};

/**
 * An AI SDK provider whose one model streams `tokens` tokens, `perTick` every `tickMs`: the same
 * writing as bench/turn-cost.ts gives its own agents.
 */
export function streamingProvider(tokens: string[], perTick: number, tickMs: number): ProviderV4 {
  const languageModel = (modelId: string): LanguageModelV4 => ({
    specificationVersion: 'v4',
    provider: 'bench',
    modelId,
    supportedUrls: {},
    async doGenerate() {
      throw new Error('The bench model only streams.');
    },
    async doStream() {
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        async start(controller) {
          controller.enqueue({ type: 'stream-start', warnings: [] });
          controller.enqueue({ type: 'text-start', id: 't' });
          for (let i = 0; i < tokens.length; i++) {
            controller.enqueue({ type: 'text-delta', id: 't', delta: tokens[i]! });
            if (i % perTick === perTick - 1) await new Promise((resolve) => setTimeout(resolve, tickMs));
          }
          controller.enqueue({ type: 'text-end', id: 't' });
          controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage });
          controller.close();
        },
      });
      return { stream };
    },
  });
  return languageModelProvider(languageModel);
}
