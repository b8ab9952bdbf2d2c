/** Evals: datasets of cases run through real agent runs and judged by scorers (docs/evaluating-agents.md). */
export { evaluate, type EvalTarget, type EvaluateOptions } from './evaluate.ts';
export {
  exactOutput,
  outputIncludes,
  outputMatches,
  outputSchema,
  toolTrajectory,
  usageBudget,
  latencyBudget,
  type ExpectedCall,
} from './scorers.ts';
export { llmJudge, type LlmJudgeOptions } from './judge.ts';
export { toJUnit } from './junit.ts';
export type {
  CaseRun,
  EvalAttempt,
  EvalCase,
  EvalCaseReport,
  EvalDataset,
  EvalReport,
  Score,
  Scorer,
  TrajectoryCall,
} from './types.ts';
export {
  recordCase,
  type RecordedCall,
  type RecordedCase,
  type RecordedStep,
  type RecordedTurn,
} from './record.ts';
export { recordedModel, replayCase, type Departure, type ReplayResult } from './replay-case.ts';
export { loadDataset } from './dataset.ts';
export { compareReports, type CaseComparison, type CaseFigures, type EvalComparison } from './compare.ts';
export { recordedTools } from './recorded-tools.ts';
export { replayReport } from './replay-report.ts';
