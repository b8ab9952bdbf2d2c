import type { LanguageModelV4, ProviderV4 } from '@ai-sdk/provider';

/**
 * A provider (what `@temporalio/ai-sdk`'s plugin takes) around one bench language model: its other
 * model kinds refuse, since no bench asks for them.
 */
export function languageModelProvider(languageModel: (modelId: string) => LanguageModelV4): ProviderV4 {
  return {
    specificationVersion: 'v4',
    languageModel,
    embeddingModel: () => {
      throw new Error('The bench provider has no embedding model.');
    },
    imageModel: () => {
      throw new Error('The bench provider has no image model.');
    },
  };
}
