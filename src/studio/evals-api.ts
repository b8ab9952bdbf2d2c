import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { compareReports, type EvalComparison } from '../evals/compare.ts';
import type { EvalReport } from '../evals/types.ts';
import type { Pricing } from '../usage/summary.ts';

/** One saved report in the Evals list (a `toolkit-agent eval --json` output file). */
export interface EvalReportListing {
  file: string;
  name: string;
  agent: string;
  passRate: number;
  passed: number;
  attempts: number;
  totalTokens: number;
  savedAt: string;
}

/** Thrown for a file name that is not a report of the folder: the page is told 404 with this message. */
export class EvalReportNotFound extends Error {}

/** The reports of `folder` (each `*.json` with `cases`), newest first; none when the folder does not exist. */
export async function listEvalReports(folder: string): Promise<EvalReportListing[]> {
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  const listed = await Promise.all(
    names
      .filter((name) => name.endsWith('.json'))
      .map(async (file): Promise<EvalReportListing[]> => {
        const report = await readReport(folder, file).catch(() => undefined);
        if (!report) return [];
        const { mtime } = await stat(join(folder, file));
        return [
          {
            file,
            name: report.name,
            agent: report.agent,
            passRate: report.passRate,
            passed: report.passed,
            attempts: report.attempts,
            totalTokens: report.usage.total_tokens,
            savedAt: mtime.toISOString(),
          },
        ];
      }),
  );
  return listed.flat().sort((a, b) => b.savedAt.localeCompare(a.savedAt));
}

/** The report saved as `file` in `folder` (a bare file name: no path leaves the folder). */
export async function readReport(folder: string, file: string): Promise<EvalReport> {
  if (!/^[\w.@-]+\.json$/.test(file) || file.startsWith('.')) {
    throw new EvalReportNotFound(`${file} is not the file name of a report in the evals folder.`);
  }
  let report: EvalReport;
  try {
    report = JSON.parse(await readFile(join(folder, file), 'utf8')) as EvalReport;
  } catch (error) {
    throw new EvalReportNotFound(`Cannot read the report ${file}: ${(error as Error).message}`);
  }
  if (!Array.isArray(report.cases)) {
    throw new EvalReportNotFound(
      `${file} is not a report: save one with toolkit-agent eval <dataset> --json.`,
    );
  }
  return report;
}

/** `current` against `baseline`, case by case (cost at `pricing`), as `eval --compare` prints it. */
export async function compareSaved(
  folder: string,
  baseline: string,
  current: string,
  pricing: Pricing | undefined,
): Promise<EvalComparison> {
  const [a, b] = await Promise.all([readReport(folder, baseline), readReport(folder, current)]);
  return compareReports(a, b, pricing ? { pricing } : {});
}
