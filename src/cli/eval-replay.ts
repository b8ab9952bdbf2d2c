import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { AgentDefinition } from '../agent/definition.ts';
import {
  loadDataset,
  recordedModel,
  recordedTools,
  replayCase,
  toJUnit,
  type RecordedCase,
  type ReplayResult,
} from '../evals/index.ts';
import { departurePlace, replayReport } from '../evals/replay-report.ts';
import { pickAgent, taskQueueOf, type LoadedConfig } from './config.ts';
import { CliError, printJson, UsageError } from './output.ts';
import { targetOf, type TargetOptions } from './target.ts';

/**
 * Runs a recorded case on the config's `agent`, on a worker of this process: with its recorded model
 * steps played back and its recorded tool results served, or with `live`, its real model and tools.
 * Answers where the agent now departs.
 */
export async function replayOnConfig(
  loaded: LoadedConfig,
  evalCase: RecordedCase,
  agent: string,
  target: TargetOptions & { live?: boolean },
): Promise<ReplayResult> {
  const { serve } = await import('./serving.ts');
  const config = target.live ? loaded : replayConfig(loaded, agent, evalCase);
  const serving = await serve(config, {
    ...targetOf(target),
    worker: true,
    temporary: true,
  });
  return replayCase(evalCase, { client: serving.agents, agent }).finally(() => serving.close());
}

/**
 * `eval <case.json> --replay`: replays each recorded case of the file (as `eval record -o` saves them)
 * without the cluster that recorded it; prints, or writes as JUnit, where each departs; exit 1 when one does.
 */
export async function replayCaseFile(
  path: string,
  loaded: LoadedConfig,
  opts: TargetOptions & { agent?: string; json?: boolean; junit?: string },
): Promise<void> {
  const dataset = await loadDataset(path);
  const cases = dataset.cases.map((evalCase) => recordedCaseOf(evalCase, path));
  const replays: Array<{ evalCase: RecordedCase; result: ReplayResult }> = [];
  let agent = '';
  for (const evalCase of cases) {
    agent = pickAgent(loaded.config, opts.agent ?? evalCase.recorded.agent);
    const result = await replayOnConfig(loaded, evalCase, agent, opts);
    replays.push({ evalCase, result });
    if (opts.json) printJson({ case: evalCase.name, ...result });
    else printReplay(evalCase.recorded.workflowId, agent, result);
  }
  if (opts.junit) await writeFile(opts.junit, toJUnit(replayReport(dataset.name ?? path, agent, replays)));
  const departed = replays.filter(({ result }) => result.departure);
  if (departed.length > 0) {
    throw new CliError(
      `${departed.map(({ evalCase }) => evalCase.name).join(', ')} departs from its record (${path}).`,
    );
  }
}

/** Prints whether the replay of the run `workflowId`'s record followed it, or where it departs. */
export function printReplay(workflowId: string, agent: string, { departure, run }: ReplayResult): void {
  process.stdout.write(
    departure
      ? `${agent} departs from the record of ${workflowId} at ${departurePlace(departure)}: ${departure.reason} (run ${run.workflowId})\n`
      : `${agent} follows the record of ${workflowId}: the same tool calls and answer (run ${run.workflowId})\n`,
  );
}

/** A recorded case of the file, or a usage error saying how to record one. */
function recordedCaseOf(evalCase: { name: string; recorded?: unknown }, path: string): RecordedCase {
  const recorded = evalCase.recorded as Partial<RecordedCase['recorded']> | undefined;
  if (!recorded || !Array.isArray(recorded.steps) || !Array.isArray(recorded.toolCalls) || !recorded.agent) {
    throw new UsageError(
      `The case "${evalCase.name}" of ${path} has no recorded run to replay: save one with ` +
        'toolkit-agent eval record <workflowId> -o case.json, or leave out --replay to run the dataset.',
    );
  }
  return evalCase as RecordedCase;
}

/**
 * The config with `agent` answering from the record (its model steps, its tools' results), and so
 * the sub-agents the record has steps of, served on a task queue of its own so that no other
 * worker takes the replay's tasks.
 */
function replayConfig(loaded: LoadedConfig, agent: string, evalCase: RecordedCase): LoadedConfig {
  const definition = loaded.config.agents[agent]!;
  const subAgents = Object.keys(evalCase.recorded.subAgents ?? {})
    .filter((name) => name !== agent && loaded.config.agents[name])
    .map((name): [string, AgentDefinition] => {
      const sub = loaded.config.agents[name]!;
      return [
        name,
        {
          ...sub,
          llm: recordedModel(evalCase, { agent: name }),
          tools: recordedTools(evalCase, sub.tools ?? [], { agent: name }),
        },
      ];
    });
  return {
    path: loaded.path,
    config: {
      ...loaded.config,
      temporal: { ...loaded.config.temporal, taskQueue: `${taskQueueOf(loaded)}-replay-${randomUUID()}` },
      agents: {
        ...loaded.config.agents,
        ...Object.fromEntries(subAgents),
        [agent]: {
          ...definition,
          llm: recordedModel(evalCase),
          tools: recordedTools(evalCase, definition.tools ?? []),
        },
      },
    },
  };
}
