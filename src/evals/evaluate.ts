import type { Client } from '@temporalio/client';
import type { AgentRunHandle } from '../client/run-handle.ts';
import type { AgentClient } from '../client/agent-client.ts';
import type { AgentChatSession } from '../client/chat-session.ts';
import type { AgentEvent } from '../common/events.ts';
import type { AgentResult } from '../common/run.ts';
import { ConfigurationError } from '../errors.ts';
import { runChatCase } from './chat-case.ts';
import type { SessionTurn } from './session-turns.ts';
import { addUsage, emptyUsage, messageOf } from './run-figures.ts';
import { exactOutput } from './scorers.ts';
import { trajectoryOf } from './trajectory.ts';
import type {
  CaseRun,
  EvalAttempt,
  EvalCase,
  EvalCaseReport,
  EvalDataset,
  EvalReport,
  Scorer,
} from './types.ts';

/** Where cases run: an `AgentClient` and an agent's name, or an `Agent`. */
export type EvalTarget =
  | { client: AgentClient; agent: string }
  | {
      agent: {
        startRun(prompt: string, opts: { tenant?: string }): Promise<AgentRunHandle<unknown>>;
        chatSession(): AgentChatSession;
        readonly temporal: { client: Client };
      };
      /** Names the agent in the report. */
      name?: string;
    };

export type EvaluateOptions = EvalTarget & {
  /** The cases, or a dataset holding them. */
  dataset: EvalCase[] | EvalDataset;
  /**
   * Scorers every attempt is judged by; a run that failed fails whatever they say. Default: the
   * dataset's, else {@link exactOutput} (cases without `expected` pass when their run completes).
   */
  scorers?: Scorer[];
  /** Runs at a time. Default 4. */
  concurrency?: number;
  /** Attempts per case, for models that do not always answer alike. Default 1. */
  repeat?: number;
};

/**
 * Runs every case of a dataset through real agent runs (each one a workflow, as in production) and
 * judges each run with the scorers: per case and attempt, whether it passed and why, and the pass
 * rate. Write the report as JUnit XML with {@link toJUnit} for a CI step, or gate on `passRate`.
 *
 * @example
 * const report = await evaluate({
 *   client: agents,
 *   agent: 'support',
 *   dataset: [{ name: 'refund', prompt: 'Refund order 7', expected: 'refunded' }],
 *   scorers: [outputIncludes(), toolTrajectory([{ tool: 'refund', args: { order: 7 } }])],
 * });
 * if (report.passRate < 0.9) process.exitCode = 1;
 */
export async function evaluate(options: EvaluateOptions): Promise<EvalReport> {
  const cases = Array.isArray(options.dataset) ? options.dataset : options.dataset.cases;
  const repeat = whole(options.repeat ?? 1, 'repeat');
  const concurrency = whole(options.concurrency ?? 4, 'concurrency');
  const scorers = options.scorers ??
    (Array.isArray(options.dataset) ? undefined : options.dataset.scorers) ?? [exactOutput()];
  const names = new Set<string>();
  for (const evalCase of cases) {
    if (names.has(evalCase.name))
      throw new ConfigurationError(`evaluate: two cases are named "${evalCase.name}".`);
    names.add(evalCase.name);
  }
  const runner = runnerOf(options);
  const started = Date.now();
  const jobs = cases.flatMap((evalCase, index) =>
    Array.from({ length: repeat }, (_, attempt) => ({ evalCase, index, attempt: attempt + 1 })),
  );
  const attempts: EvalAttempt[][] = cases.map(() => []);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < jobs.length) {
      const { evalCase, index, attempt } = jobs[next++]!;
      const run = await runCase(runner, evalCase);
      const scores = [];
      for (const scorer of scorers)
        scores.push({ scorer: scorer.name, ...(await scorer.score(run, evalCase)) });
      attempts[index]!.push({ attempt, run, scores, pass: !run.error && scores.every((s) => s.pass) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, lane));
  const reports: EvalCaseReport[] = cases.map((evalCase, index) => {
    const list = attempts[index]!.sort((a, b) => a.attempt - b.attempt);
    return {
      name: evalCase.name,
      tags: evalCase.tags ?? [],
      attempts: list,
      passRate: list.filter((a) => a.pass).length / list.length,
    };
  });
  const all = reports.flatMap((report) => report.attempts);
  const passed = all.filter((a) => a.pass).length;
  return {
    name: Array.isArray(options.dataset) ? 'eval' : (options.dataset.name ?? 'eval'),
    agent: typeof options.agent === 'string' ? options.agent : ('name' in options && options.name) || 'agent',
    cases: reports,
    passRate: all.length ? passed / all.length : 1,
    attempts: all.length,
    passed,
    durationMs: Date.now() - started,
    usage: all.reduce((sum, a) => addUsage(sum, a.run.usage), emptyUsage()),
  };
}

/** Starts the runs of cases: a run for a prompt, a chat session for turns. */
export interface CaseRunner {
  start(prompt: string, evalCase: EvalCase): Promise<AgentRunHandle<unknown>>;
  chat(evalCase: EvalCase): { session: AgentChatSession; client: () => Client };
}

/** How to start the runs of cases on `target`. */
export function runnerOf(options: EvalTarget): CaseRunner {
  const tenant = (evalCase: EvalCase) => (evalCase.tenant === undefined ? {} : { tenant: evalCase.tenant });
  if ('client' in options) {
    const { client, agent } = options;
    return {
      start: (prompt, evalCase) => client.startRun(agent, prompt, tenant(evalCase)),
      chat: (evalCase) => ({
        session: client.chatSession(agent, tenant(evalCase)),
        client: () => client.client,
      }),
    };
  }
  const { agent } = options;
  return {
    start: (prompt, evalCase) => agent.startRun(prompt, tenant(evalCase)),
    chat: () => ({ session: agent.chatSession(), client: () => agent.temporal.client }),
  };
}

/**
 * One run of a case, to its end: its answer, its tool calls (the sub-agents' too), tokens and time.
 * Its events (its sub-agents' included) are added to `events`. A chat case runs as a session, whose
 * turns are added to `turns`.
 */
export async function runCase(
  runner: CaseRunner,
  evalCase: EvalCase,
  events: AgentEvent[] = [],
  turns: SessionTurn[] = [],
): Promise<CaseRun> {
  if (Array.isArray(evalCase.prompt)) {
    return runChatCase(runner.chat(evalCase), evalCase.prompt, events, turns);
  }
  const began = Date.now();
  let handle: AgentRunHandle<unknown> | undefined;
  try {
    handle = await runner.start(evalCase.prompt, evalCase);
    for await (const event of handle.events()) events.push(event);
    const result: AgentResult<unknown> = await handle.result();
    return {
      workflowId: handle.workflowId,
      output: result.output,
      stopReason: result.metadata.stop_reason,
      model: result.metadata.model,
      toolCalls: trajectoryOf(events),
      usage: result.metadata.usage,
      durationMs: Date.now() - began,
    };
  } catch (error) {
    return {
      workflowId: handle?.workflowId ?? '',
      output: undefined,
      toolCalls: trajectoryOf(events),
      usage: emptyUsage(),
      durationMs: Date.now() - began,
      error: messageOf(error),
    };
  }
}

function whole(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new ConfigurationError(
      `evaluate: \`${name}\` must be a whole number of at least 1; got ${String(value)}.`,
    );
  }
  return value;
}
