/**
 * The model: Anthropic with ANTHROPIC_API_KEY (`npm install @ai-sdk/anthropic`), OpenAI with
 * OPENAI_API_KEY (`npm install @ai-sdk/openai`), else the small offline model
 * (`npx toolkit-agent model pull` once).
 */
import { findLocalModel, LocalLlamaModel } from 'toolkit-agent';

export async function chooseModel() {
  if (process.env.ANTHROPIC_API_KEY) {
    const { anthropic } = await import('@ai-sdk/anthropic');
    return anthropic('claude-sonnet-4-5');
  }
  if (process.env.OPENAI_API_KEY) {
    const { openai } = await import('@ai-sdk/openai');
    return openai('gpt-5-mini');
  }
  const modelPath = await findLocalModel();
  if (!modelPath) {
    throw new Error(
      'No model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or run `npx toolkit-agent model pull`.',
    );
  }
  // A 270M model answers best when each turn calls a tool first, then answers.
  return new LocalLlamaModel({ modelPath, toolChoice: 'required' });
}
