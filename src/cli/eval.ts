import { readFile, writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { EvalComparison, EvalReport } from '../evals/index.ts';
import { loadConfig, pickAgent } from './config.ts';
import { registerEvalRecord } from './eval-record.ts';
import { CliError, printJson, printTable, UsageError } from './output.ts';
import { targetOf, withTargetOptions, type TargetOptions } from './target.ts';

interface EvalOptions extends TargetOptions {
  agent?: string;
  repeat: string;
  concurrency: string;
  threshold: string;
  json?: boolean;
  junit?: string;
  compare?: string;
  worker: boolean;
  replay?: boolean;
}

export function registerEval(program: Command): void {
  const command = withTargetOptions(
    program
      .command('eval')
      .argument('[dataset]', 'a dataset: .json, .jsonl, or a .ts module exporting one (with its scorers)')
      .description(
        "Run a dataset's cases through the agent and score them: a table, --json or --junit; exits 1 below --threshold",
      ),
  )
    .option(
      '-a, --agent <name>',
      "the config's agent (default: the dataset's agent, else defaultAgent or first)",
    )
    .option('--repeat <n>', 'attempts per case (for models that do not always answer alike)', '1')
    .option('--concurrency <n>', 'runs at a time', '4')
    .option('--threshold <rate>', 'the least pass rate (0 to 1) that exits 0', '1')
    .option('--json', 'print the report as one JSON line')
    .option('--junit <file>', 'also write the report as JUnit XML to this file')
    .option(
      '--compare <baseline.json>',
      "show per case what got better or worse than a report saved with --json (cost at the config's pricing)",
    )
    .option('--no-worker', 'do not serve the agents in this process (a `toolkit-agent worker` does)')
    .option(
      '--replay',
      'replay the recorded cases of the file (eval record -o case.json) on the agent: recorded model steps and tool results played back; exits 1 where one departs',
    )
    .action(async (path: string | undefined, opts: EvalOptions, cmd: Command) => {
      if (!path) throw new UsageError('Name a dataset: toolkit-agent eval <dataset>.');
      if (opts.replay) {
        const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
        const { replayCaseFile } = await import('./eval-replay.ts');
        return replayCaseFile(path, loaded, opts);
      }
      const repeat = count(opts.repeat, '--repeat');
      const concurrency = count(opts.concurrency, '--concurrency');
      const threshold = Number(opts.threshold);
      if (!(threshold >= 0 && threshold <= 1)) throw new UsageError('--threshold takes a rate from 0 to 1.');
      const baseline = opts.compare ? await readReport(opts.compare) : undefined;
      const { compareReports, evaluate, loadDataset, toJUnit } = await import('../evals/index.ts');
      const dataset = await loadDataset(path);
      const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      const agent = pickAgent(loaded.config, opts.agent ?? dataset.agent);
      const { serve } = await import('./serving.ts');
      const serving = await serve(loaded, { ...targetOf(opts), worker: opts.worker, temporary: true });
      const report = await evaluate({ client: serving.agents, agent, dataset, repeat, concurrency }).finally(
        () => serving.close(),
      );
      if (opts.junit) await writeFile(opts.junit, toJUnit(report));
      const pricing = loaded.config.pricing;
      const comparison = baseline && compareReports(baseline, report, pricing ? { pricing } : {});
      if (opts.json) printJson(comparison ? { ...report, comparison } : report);
      else {
        printReport(report);
        if (comparison) printComparison(comparison);
      }
      if (report.passRate < threshold) {
        throw new CliError(
          `Pass rate ${percent(report.passRate)} is below the threshold ${percent(threshold)}.`,
        );
      }
    });
  registerEvalRecord(command);
}

function printReport(report: EvalReport): void {
  printTable(
    ['case', 'passed', 'scores', 'tokens', 'time'],
    report.cases.map((evalCase) => {
      const attempts = evalCase.attempts;
      const failed = attempts.flatMap((a) =>
        a.run.error
          ? [`run failed: ${a.run.error}`]
          : a.scores.filter((s) => !s.pass).map((s) => `${s.scorer}: ${s.reason ?? s.score}`),
      );
      const tokens = attempts.reduce((sum, a) => sum + a.run.usage.total_tokens, 0);
      const ms = attempts.reduce((sum, a) => sum + a.run.durationMs, 0) / attempts.length;
      return [
        evalCase.name,
        `${attempts.filter((a) => a.pass).length}/${attempts.length}`,
        failed.length ? (failed[0] ?? '') : 'all passed',
        String(tokens),
        `${Math.round(ms)} ms`,
      ];
    }),
  );
  process.stdout.write(
    `${report.passed}/${report.attempts} passed (${percent(report.passRate)}), ${report.usage.total_tokens} tokens\n`,
  );
}

function printComparison(comparison: EvalComparison): void {
  process.stdout.write('\n');
  const arrow = (from: string | undefined, to: string | undefined) => `${from ?? '-'} → ${to ?? '-'}`;
  const cost = (value: number | undefined) => (value === undefined ? undefined : `$${value.toFixed(6)}`);
  printTable(
    ['case', 'change', 'passed', 'score', 'tokens', 'time', 'cost'],
    comparison.cases.map(({ name, change, baseline: b, current: c }) => [
      name,
      change,
      arrow(b && percent(b.passRate), c && percent(c.passRate)),
      arrow(b?.score.toFixed(2), c?.score.toFixed(2)),
      arrow(b && String(Math.round(b.tokens)), c && String(Math.round(c.tokens))),
      arrow(b && `${Math.round(b.latencyMs)} ms`, c && `${Math.round(c.latencyMs)} ms`),
      arrow(cost(b?.cost), cost(c?.cost)),
    ]),
  );
  process.stdout.write(`${comparison.better} better, ${comparison.worse} worse than the baseline\n`);
}

async function readReport(path: string): Promise<EvalReport> {
  let report: EvalReport;
  try {
    report = JSON.parse(await readFile(path, 'utf8')) as EvalReport;
  } catch (error) {
    throw new UsageError(`Cannot read the baseline ${path}: ${(error as Error).message}`);
  }
  if (!Array.isArray(report.cases)) {
    throw new UsageError(`${path} is not a report: save one with toolkit-agent eval <dataset> --json.`);
  }
  return report;
}

function count(value: string, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} takes a whole number of at least 1.`);
  return n;
}

function percent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}
