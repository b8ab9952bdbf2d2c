import type { LanguageModelV4, LanguageModelV4CallOptions, ProviderV4 } from '@ai-sdk/provider';
import { languageModelProvider } from '../language-model-provider.ts';

/** The plain baselines' activities. */
export interface FloorActivities {
  noop(n: number): Promise<string>;
  modelStep(delayMs: number): Promise<string>;
}

export const floorActivities: FloorActivities = {
  async noop() {
    return 'ok';
  },
  async modelStep(delayMs) {
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return 'step';
  },
};

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/**
 * An AI SDK provider for the bench, the twin of bench/floor.ts's LoopModel: model `loop-<steps>`
 * (and `slow-<steps>`, each step taking the slow delay) asks for the no-op tool until the run has
 * had `steps - 1` tool steps, then answers.
 */
export function loopProvider(slowMs: number): ProviderV4 {
  const languageModel = (modelId: string): LanguageModelV4 => {
    const [kind, count] = modelId.split('-');
    const steps = Number(count);
    return {
      specificationVersion: 'v4',
      provider: 'bench',
      modelId,
      supportedUrls: {},
      async doGenerate(options: LanguageModelV4CallOptions) {
        if (kind === 'slow') await new Promise((resolve) => setTimeout(resolve, slowMs));
        const done = options.prompt.filter((m) => m.role === 'assistant').length;
        if (done >= steps - 1)
          return {
            content: [{ type: 'text', text: 'done' }],
            finishReason: { unified: 'stop', raw: undefined },
            usage,
            warnings: [],
          };
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: `c${done}`,
              toolName: 'noop',
              input: JSON.stringify({ n: done }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      },
      async doStream() {
        throw new Error('The bench model does not stream.');
      },
    };
  };
  return languageModelProvider(languageModel);
}
