import type { OutputIssue } from './types.ts';

/**
 * The message that sends an answer back to the model: what did not match, path by path, and what to
 * do. Pure (no I/O), so the workflow builds it and stores it as an ordinary durable step.
 */
export function repairMessage(issues: readonly OutputIssue[], attempt: number, allowed: number): string {
  const lines = issues
    .slice(0, 20)
    .map((issue) => `- ${issue.path || '(the whole answer)'}: ${issue.message}`);
  if (issues.length > 20) lines.push(`- ... and ${issues.length - 20} more`);
  return [
    `Your answer does not match the required JSON schema (repair ${attempt} of ${allowed}):`,
    ...lines,
    'Answer again with only the corrected JSON value: no prose and no code fences.',
  ].join('\n');
}

/** The paths of the issues, once each, in order. */
export function issuePaths(issues: readonly OutputIssue[]): string[] {
  return [...new Set(issues.map((issue) => issue.path))];
}
