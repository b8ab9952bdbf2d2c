import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { loadConfig, loadOptionalConfig, pickAgent } from './config.ts';
import { connect, type ConnectOptions } from './connect.ts';
import { CliError, printJson, UsageError } from './output.ts';

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
      const { recordCase } = await import('../evals/index.ts');
      const { agents } = await connect(opts, cmd);
      // The workers' store: each step keeps the text the model wrote beside its tool calls.
      const { memoryStoreOf } = await import('./memory-store.ts');
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
      const { printReplay, replayOnConfig } = await import('./eval-replay.ts');
      const result = await replayOnConfig(loaded, evalCase, agent, { ...opts, live: Boolean(opts.live) });
      if (opts.json) printJson(result);
      else printReplay(workflowId, agent, result);
      if (result.departure) throw new CliError(`The run departs from the record of ${workflowId}.`);
    });
}
