// Rewrites test/durations.json, the table test/longest-first-sequencer.ts orders test files by, from a
// whole run's JSON report: `vitest run --reporter=json --outputFile=report.json` on the CI machine, then
// `node scripts/test-durations.ts report.json`.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const [reportFile] = process.argv.slice(2);
if (!reportFile) {
  console.error('usage: node scripts/test-durations.ts <report.json> (from vitest run --reporter=json)');
  process.exit(2);
}
const root = new URL('..', import.meta.url).pathname;
const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
  testResults?: Array<{ name: string; startTime: number; endTime: number }>;
};
if (!report.testResults?.length) {
  console.error(`${reportFile} has no testResults: is it vitest's JSON report of a whole run?`);
  process.exit(1);
}
const seconds = report.testResults
  .map((file) => [relative(root, file.name), Math.round((file.endTime - file.startTime) / 1000)] as const)
  .sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
writeFileSync(
  new URL('../test/durations.json', import.meta.url),
  `${JSON.stringify(Object.fromEntries(seconds), null, 2)}\n`,
);
console.log(
  `test/durations.json: ${seconds.length} files, ${seconds.reduce((sum, [, s]) => sum + s, 0)} s in all.`,
);
