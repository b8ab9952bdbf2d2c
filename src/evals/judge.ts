import type { ModelAdapter } from '../models/model-adapter.ts';
import { toModelAdapter, type LlmOption } from '../models/to-adapter.ts';
import { checkAnswer } from '../output/check.ts';
import { outputText } from './scorers.ts';
import type { Scorer } from './types.ts';

/** The verdict a judge model writes: a score from 0 to 1 and its reason. */
const VERDICT_SCHEMA = {
  type: 'object',
  properties: {
    score: { type: 'number', minimum: 0, maximum: 1 },
    reason: { type: 'string' },
  },
  required: ['score', 'reason'],
  additionalProperties: false,
};

export interface LlmJudgeOptions {
  /** The judge: any model adapter or AI SDK model (it need not be the agent's). */
  model: LlmOption;
  /** What a good answer is, in words: the judge scores the answer against it. */
  rubric: string;
  /** The least score that passes. Default 0.7. */
  passScore?: number;
  /** Names the scorer in reports. Default `judge`. */
  name?: string;
}

/**
 * A scorer that asks a model to grade the answer against a rubric: the judge sees the case's prompt,
 * its `expected` answer (when it has one) and the answer, and answers `{ score, reason }` (asked as
 * a structured answer). An answer that is not such a verdict fails the case with the judge's text.
 */
export function llmJudge(opts: LlmJudgeOptions): Scorer {
  const model: ModelAdapter = toModelAdapter(opts.model, 'llmJudge');
  const passScore = opts.passScore ?? 0.7;
  return {
    name: opts.name ?? 'judge',
    async score(run, evalCase) {
      const expected =
        evalCase.expected === undefined
          ? ''
          : `\n\nA reference answer:\n${typeof evalCase.expected === 'string' ? evalCase.expected : JSON.stringify(evalCase.expected)}`;
      const response = await model.generate({
        messages: [
          {
            role: 'system',
            content:
              'You grade the answer of an AI agent against a rubric. Answer with JSON only: ' +
              '{"score": <a number from 0 (fails the rubric) to 1 (meets it fully)>, "reason": "<one sentence>"}.\n\n' +
              `Rubric:\n${opts.rubric}`,
          },
          {
            role: 'user',
            content: `The task:\n${taskOf(evalCase.prompt)}${expected}\n\nThe agent's answer:\n${outputText(run)}`,
          },
        ],
        tools: [],
        output: { schema: VERDICT_SCHEMA },
      });
      const checked = checkAnswer(response.text, VERDICT_SCHEMA);
      if (!checked.ok) {
        return {
          score: 0,
          pass: false,
          reason: `the judge did not answer a verdict: ${response.text.slice(0, 200)}`,
        };
      }
      const { score, reason } = checked.value as { score: number; reason: string };
      return { score, pass: score >= passScore, reason };
    },
  };
}

/** A chat case's turns as one text, numbered; a prompt as it is. */
function taskOf(prompt: string | string[]): string {
  return Array.isArray(prompt) ? prompt.map((turn, i) => `Turn ${i + 1}: ${turn}`).join('\n') : prompt;
}
