import { costOf, priceOf, type Pricing } from '../usage/summary.ts';
import type { EvalCaseReport, EvalReport } from './types.ts';

/** One side of a case in a comparison: means over its attempts. */
export interface CaseFigures {
  passRate: number;
  /** The mean score over every scorer of every attempt, from 0 to 1. */
  score: number;
  /** Tokens per attempt. */
  tokens: number;
  /** Milliseconds per attempt. */
  latencyMs: number;
  /** Dollars per attempt, when `pricing` prices the model of every attempt. */
  cost?: number;
}

export interface CaseComparison {
  name: string;
  baseline?: CaseFigures;
  current?: CaseFigures;
  /**
   * `better` or `worse` by pass rate, else by mean score; `same` when both are equal; `added` and
   * `removed` for a case only one report has.
   */
  change: 'better' | 'worse' | 'same' | 'added' | 'removed';
}

export interface EvalComparison {
  cases: CaseComparison[];
  better: number;
  worse: number;
}

/**
 * What changed between two reports of the same dataset (say, before and after a prompt change),
 * case by case: pass rate, mean score, tokens, latency and, with `pricing` (dollars per million
 * tokens by model, as the usage ledger prices them), cost. Keep the baseline with `--json` or
 * `JSON.stringify(report)`.
 */
export function compareReports(
  baseline: EvalReport,
  current: EvalReport,
  opts: { pricing?: Pricing } = {},
): EvalComparison {
  const before = new Map(baseline.cases.map((c) => [c.name, c]));
  const names = [...new Set([...current.cases.map((c) => c.name), ...before.keys()])];
  const now = new Map(current.cases.map((c) => [c.name, c]));
  const cases = names.map((name): CaseComparison => {
    const was = before.get(name);
    const is = now.get(name);
    const b = was && figures(was, opts.pricing);
    const c = is && figures(is, opts.pricing);
    const change = !b ? 'added' : !c ? 'removed' : direction(c.passRate - b.passRate || c.score - b.score);
    return { name, ...(b ? { baseline: b } : {}), ...(c ? { current: c } : {}), change };
  });
  return {
    cases,
    better: cases.filter((c) => c.change === 'better').length,
    worse: cases.filter((c) => c.change === 'worse').length,
  };
}

function direction(delta: number): CaseComparison['change'] {
  if (Math.abs(delta) < 1e-9) return 'same';
  return delta > 0 ? 'better' : 'worse';
}

function figures(report: EvalCaseReport, pricing: Pricing | undefined): CaseFigures {
  const attempts = report.attempts;
  const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
  const scores = attempts.flatMap((a) => (a.run.error ? [0] : a.scores.map((s) => s.score)));
  const costs = attempts.map((a) => {
    const price = pricing && a.run.model ? priceOf(pricing, a.run.model) : undefined;
    return price ? costOf(a.run.usage, price) : undefined;
  });
  const priced = costs.every((cost) => cost !== undefined);
  return {
    passRate: report.passRate,
    score: mean(scores),
    tokens: mean(attempts.map((a) => a.run.usage.total_tokens)),
    latencyMs: mean(attempts.map((a) => a.run.durationMs)),
    ...(pricing && priced ? { cost: mean(costs.map(Number)) } : {}),
  };
}
