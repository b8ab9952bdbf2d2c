import type { EvalReport } from './types.ts';

/**
 * The report as JUnit XML, which CI systems read as test results: one `testsuite` per report, one
 * `testcase` per attempt (named `<case> #<n>` when a case ran more than once), a `failure` naming
 * each scorer that failed and why, or the run's error.
 */
export function toJUnit(report: EvalReport): string {
  const attempts = report.cases.flatMap((evalCase) =>
    evalCase.attempts.map((attempt) => ({ evalCase, attempt })),
  );
  const failures = attempts.filter(({ attempt }) => !attempt.pass).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xml(report.name)}" tests="${attempts.length}" failures="${failures}" time="${seconds(report.durationMs)}">`,
    `  <testsuite name="${xml(`${report.name}: ${report.agent}`)}" tests="${attempts.length}" failures="${failures}" errors="0" skipped="0" time="${seconds(report.durationMs)}">`,
  ];
  for (const { evalCase, attempt } of attempts) {
    const name = evalCase.attempts.length > 1 ? `${evalCase.name} #${attempt.attempt}` : evalCase.name;
    lines.push(
      `    <testcase name="${xml(name)}" classname="${xml(report.agent)}" time="${seconds(attempt.run.durationMs)}">`,
    );
    if (!attempt.pass) {
      const why = attempt.run.error
        ? [`run failed: ${attempt.run.error}`]
        : attempt.scores.filter((s) => !s.pass).map((s) => `${s.scorer}: ${s.reason ?? `score ${s.score}`}`);
      lines.push(
        `      <failure message="${xml(why[0] ?? 'failed')}" type="${attempt.run.error ? 'RunFailed' : 'ScoreFailed'}">${xml(why.join('\n'))}</failure>`,
      );
    }
    lines.push(
      `      <system-out>${xml(`workflow ${attempt.run.workflowId}`)}</system-out>`,
      '    </testcase>',
    );
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** Text safe in an XML attribute or element (characters XML 1.0 forbids are dropped). */
function xml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
  );
}
