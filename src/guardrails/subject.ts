import type { GuardrailAnswer, GuardrailToolCall } from './types.ts';

/** What any kind of check is given: a prompt, an answer, or a tool call. */
export type GuardrailSubject = string | GuardrailAnswer | GuardrailToolCall;

/** The text a built-in check reads: the prompt, the answer's text, or a tool call's result (after it ran). */
export function textOf(subject: GuardrailSubject): string | undefined {
  if (typeof subject === 'string') return subject;
  if ('phase' in subject) return subject.phase === 'after' ? subject.result : undefined;
  return subject.text;
}
