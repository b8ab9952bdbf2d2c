import { ConfigurationError } from '../errors.ts';
import { aiSdkModel, isLanguageModel, type LanguageModel } from './ai-sdk.ts';
import { isModelAdapter, type ModelAdapter } from './model-adapter.ts';

/** What `llm` accepts: our adapter, or any AI SDK provider model (e.g. `anthropic('claude-sonnet-4-5')`). */
export type LlmOption = ModelAdapter | LanguageModel;

export function toModelAdapter(llm: unknown, where: string): ModelAdapter {
  if (isModelAdapter(llm)) return llm;
  if (isLanguageModel(llm)) return aiSdkModel(llm);
  throw new ConfigurationError(
    `${where}: \`llm\` must be an AI SDK model (e.g. openai('gpt-5') from @ai-sdk/openai) or a ModelAdapter ` +
      '(for tests: ScriptedModel from toolkit-agent/testing).',
  );
}
