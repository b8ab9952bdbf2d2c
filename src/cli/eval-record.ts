import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import {
  recordCase,
  recordedModel,
  recordedTools,
  replayCase,
  type RecordedCase,
  type ReplayResult,
} from '../evals/index.ts';
import { loadConfig, loadOptionalConfig, pickAgent, taskQueueOf, type LoadedConfig } from './config.ts';
import { memoryStoreOf } from './memory-store.ts';
import type { AgentDefinition } from '../agent/definition.ts';
import { connect, type ConnectOptions } from './connect.ts';
import { CliError, printJson, UsageError } from './output.ts';
import { targetOf } from './target.ts';

interface RecordOptions extends ConnectOptions {
  out?: string;
  replay?: boolean;
  live?: boolean;
}

/** `eval record <workflowId>`: a finished run as a case, and with --replay or --live, the case run again. */
export function registerEvalRecord(evalCommand: Command): void {
  // `eval`'s options (the target's, --agent, --json) are its too: Commander gives them to `eval`.
  evalCommand
    .command('record <workflowId>')
    .description(
      'Write a finished run or chat session as a case (prompts, model steps, tool calls with results, answers; its sub-agents too); --replay or --live runs it again on --agent (default: the recorded one) and names where it departs',
    )
    .option('-o, --out <file>', 'write the case to this file (default: standard output, unless replaying)')
    .option(
      '--replay',
      "run the case on the config's agent with the recorded model steps played back and recorded tool results served",
    )
    .option('--live', "run the case on the config's agent with its real model and tools")
    .action(async (workflowId: string, _own: RecordOptions, cmd: Command) => {
      const opts = cmd.optsWithGlobals<RecordOptions & { agent?: string }>();
      if (opts.replay && opts.live) throw new UsageError('Give --replay or --live, not both.');
      const { agents } = await connect(opts, cmd);
      // The workers' store: each step keeps the text the model wrote beside its tool calls.
      const memory = memoryStoreOf(
        (await loadOptionalConfig(cmd.optsWithGlobals<{ config?: string }>().config))?.config,
      );
      const evalCase = await recordCase(agents.getHandle(workflowId), { memoryStore: memory.store }).finally(
        () => Promise.all([agents.close(), memory.close()]),
      );
      const text = `${JSON.stringify(evalCase, null, 2)}\n`;
      if (opts.out) await writeFile(opts.out, text);
      else if (!opts.replay && !opts.live) process.stdout.write(text);
      if (!opts.replay && !opts.live) return;
      const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      const agent = pickAgent(loaded.config, opts.agent ?? evalCase.recorded.agent);
      const { serve } = await import('./serving.ts');
      const serving = await serve(opts.replay ? replayConfig(loaded, agent, evalCase) : loaded, {
        ...targetOf(opts),
        worker: true,
        temporary: true,
      });
      const result = await replayCase(evalCase, { client: serving.agents, agent }).finally(() =>
        serving.close(),
      );
      if (opts.json) printJson(result);
      else printReplay(workflowId, agent, result);
      if (result.departure) throw new CliError(`The run departs from the record of ${workflowId}.`);
    });
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

function printReplay(workflowId: string, agent: string, { departure, run }: ReplayResult): void {
  if (!departure) {
    process.stdout.write(
      `${agent} follows the record of ${workflowId}: the same tool calls and answer (run ${run.workflowId})\n`,
    );
    return;
  }
  const what = departure.kind === 'call' ? `tool call ${departure.index + 1}` : 'the answer';
  const where = departure.turn === undefined ? what : `turn ${departure.turn}, ${what}`;
  process.stdout.write(
    `${agent} departs from the record of ${workflowId} at ${where}: ${departure.reason} (run ${run.workflowId})\n`,
  );
}
