import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each test file took in a whole `.ci/run` on the 2-core CI machine, by path. */
const DURATIONS = JSON.parse(readFileSync(new URL('durations.json', import.meta.url), 'utf8')) as Record<
  string,
  number
>;

/**
 * Starts the longest test files first, unit and integration alike, by `test/durations.json`, so
 * that no file of minutes starts near the end of the run and holds one worker while the others sit
 * idle. (Without it a fresh clone, which has no results cache, runs the integration files largest
 * first and the unit files after them.) A file the table lacks, a new one, starts first, as vitest
 * starts unknown files. `node scripts/test-durations.ts <report.json>` updates the table from a whole
 * run's `vitest run --reporter=json --outputFile=<report.json>`.
 */
export default class LongestFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const seconds = (spec: TestSpecification) =>
      DURATIONS[relative(root, spec.moduleId)] ?? Number.POSITIVE_INFINITY;
    return Promise.resolve([...files].sort((a, b) => seconds(b) - seconds(a)));
  }
}
