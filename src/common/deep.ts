import type { AgentResult, AgentRunInput, Verification } from './run.ts';

export type { Verification } from './run.ts';

export interface DeepAgentRunInput extends AgentRunInput {
  /** Check the answer against the task, and revise it once when the check fails. */
  verify?: boolean;
}

export type DeepAgentResult<T = string> = AgentResult<T> & {
  metadata: AgentResult['metadata'] & { plan: string; verification: Verification };
};

export const PLAN_PROMPT =
  'Write a short, numbered plan (at most 6 steps) for the task below: what to find out, which tools to use, ' +
  'and what the answer must contain. Do not carry out the task.\n\nTask:\n';

export const VERIFY_PROMPT =
  'Check the answer below against the task. Reply with PASS on the first line if it fully and correctly ' +
  'answers the task; otherwise reply with FAIL on the first line and then say exactly what is wrong or missing.';

/** PASS or FAIL on the first line decides; anything unclear counts as a failure worth one revision. */
export function parseVerdict(text: string): { pass: boolean; feedback: string } {
  const [first = '', ...rest] = text.trim().split('\n');
  const pass = /^\W*pass\b/i.test(first);
  const feedback = (
    /^\W*(pass|fail)\b\W*/i.test(first)
      ? [first.replace(/^\W*(pass|fail)\b\W*/i, ''), ...rest]
      : [first, ...rest]
  )
    .join('\n')
    .trim();
  return { pass, feedback };
}
