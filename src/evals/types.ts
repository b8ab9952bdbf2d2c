import type { Usage } from '../common/messages.ts';
import type { StopReason } from '../common/run.ts';

/** One case of a dataset: a prompt for the agent and what a good answer is. */
export interface EvalCase {
  /** Names the case in reports (and in JUnit's `testcase`). */
  name: string;
  /** The task: one prompt for a run, or the user's messages of a chat session, one a turn. */
  prompt: string | string[];
  /** The answer expected: text for the text scorers, an object for structured runs. */
  expected?: unknown;
  /** Runs the case for this tenant (its credentials and quotas). */
  tenant?: string;
  tags?: string[];
}

/**
 * Cases to run through one agent. A JSON file holds this shape (without `scorers`) or the cases
 * alone; a JSONL file one case a line; a TypeScript module exports it as its default.
 */
export interface EvalDataset {
  name?: string;
  /** The agent to run the cases on, by name (the CLI's default `--agent`). */
  agent?: string;
  cases: EvalCase[];
  /** Scorers for every case, unless `evaluate` is given its own. */
  scorers?: Scorer[];
}

/** One tool call of a run, as trajectory scorers see it: the sub-agents' calls included. */
export interface TrajectoryCall {
  tool: string;
  args: Record<string, unknown>;
  /** The sub-agent that made the call (absent for the run's own calls). */
  agent?: string;
  /** 0 for the run's own calls, 1 for its sub-agents', and so on. */
  depth: number;
}

/** What one run of a case gave: what scorers judge. */
export interface CaseRun {
  workflowId: string;
  /** The answer: text, or the parsed object of a structured run. */
  output: unknown;
  stopReason?: StopReason;
  /** The model that answered (its name on the worker). */
  model?: string;
  toolCalls: TrajectoryCall[];
  usage: Usage;
  durationMs: number;
  /** Why the run failed, when it did (then `output` is undefined). */
  error?: string;
}

/** A scorer's verdict on one run: a score from 0 to 1, whether it passes, and why. */
export interface Score {
  score: number;
  pass: boolean;
  reason?: string;
}

/** Judges one run of a case. Build one with the scorer constructors (`exactOutput`, `toolTrajectory`, ...). */
export interface Scorer {
  readonly name: string;
  score(run: CaseRun, evalCase: EvalCase): Score | Promise<Score>;
}

/** One attempt at a case (more than one with `repeat`). */
export interface EvalAttempt {
  attempt: number;
  run: CaseRun;
  /** Every scorer's verdict, by scorer name. */
  scores: Array<Score & { scorer: string }>;
  /** The run did not fail and every scorer passed. */
  pass: boolean;
}

export interface EvalCaseReport {
  name: string;
  tags: string[];
  attempts: EvalAttempt[];
  /** Attempts that passed, from 0 to 1. */
  passRate: number;
}

/** What {@link evaluate} returns: per case, per attempt, and in total. */
export interface EvalReport {
  name: string;
  agent: string;
  cases: EvalCaseReport[];
  /** Attempts that passed over all attempts, from 0 to 1. */
  passRate: number;
  attempts: number;
  passed: number;
  durationMs: number;
  /** Tokens over every attempt. */
  usage: Usage;
}
