// Updates test/durations.json, the table test/longest-first-sequencer.ts orders test files by, from a
// run's JSON report: `vitest run --reporter=json --outputFile=report.json` on the CI machine (a whole
// run, so that every figure was measured under the same load), then
// `node scripts/test-durations.ts report.json`. Files the report lacks keep their figure; files that
// no longer exist are dropped.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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
  console.error(`${reportFile} has no testResults: is it vitest's JSON report?`);
  process.exit(1);
}
const table = new URL('../test/durations.json', import.meta.url);
const seconds: Record<string, number> = JSON.parse(readFileSync(table, 'utf8')) as Record<string, number>;
for (const file of report.testResults) {
  seconds[relative(root, file.name)] = Math.round((file.endTime - file.startTime) / 1000);
}
const rows = Object.entries(seconds)
  .filter(([file]) => existsSync(new URL(`../${file}`, import.meta.url)))
  .sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
writeFileSync(table, `${JSON.stringify(Object.fromEntries(rows), null, 2)}\n`);
console.log(
  `test/durations.json: ${report.testResults.length} files updated; ${rows.length} files, ` +
    `${rows.reduce((sum, [, s]) => sum + s, 0)} s in all.`,
);
