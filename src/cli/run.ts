import type { Command } from 'commander';
import type { AgentRunHandle } from '../client/agent-client.ts';
import { loadConfig, pickAgent } from './config.ts';
import { targetOf, withTargetOptions } from './target.ts';
import { LiveView } from './live-view.ts';
import { CliError, EXIT, note } from './output.ts';

interface RunOptions {
  agent?: string;
  model?: string;
  skill: string[];
  tenant?: string;
  id?: string;
  json?: boolean;
  approveAll?: boolean;
  address?: string;
  namespace?: string;
  profile?: string;
  worker: boolean;
}

/**
 * Cancels the run on the first Ctrl-C (the run ends cleanly and is reported); a second Ctrl-C
 * leaves at once. Returns a function that removes the handler.
 */
export function cancelOnInterrupt(cancel: () => Promise<void>): () => void {
  let interrupted = false;
  const onInterrupt = () => {
    if (interrupted) process.exit(EXIT.failure);
    interrupted = true;
    note('\nCancelling the run (Ctrl-C again to leave at once)...');
    cancel().catch((error: unknown) => note(`Could not cancel: ${(error as Error).message}`));
  };
  process.on('SIGINT', onInterrupt);
  return () => process.off('SIGINT', onInterrupt);
}

/** Asks Temporal to cancel the run. */
export async function cancelRun(handle: AgentRunHandle): Promise<void> {
  await handle.workflow.cancel();
}

export function registerRun(program: Command): void {
  withTargetOptions(program.command('run <prompt>'))
    .description('Run an agent on a prompt with a live view (the embedded server, or the configured cluster)')
    .option('-a, --agent <name>', "the config's agent (default: its defaultAgent or first)")
    .option('-m, --model <name>', "one of the agent's models, by name")
    .option('-s, --skill <id...>', 'skills for this run', [])
    .option('--tenant <tenant>', "use one end user's credentials")
    .option('--id <workflowId>', "the run's workflow id (default: agent-<name>-<uuid>); one id runs once")
    .option('--json', 'print the events as NDJSON')
    .option('--approve-all', 'approve every tool call that asks for approval')
    .option('--no-worker', 'do not serve the agents in this process (a `toolkit-agent worker` does)')
    .addHelpText(
      'after',
      '\nExit codes: 0 the run completed, 1 it failed or was cancelled (Ctrl-C), 2 usage.',
    )
    .action(async (prompt: string, opts: RunOptions, cmd: Command) => {
      const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      const agent = pickAgent(loaded.config, opts.agent);
      const { serve } = await import('./serving.ts');
      const serving = await serve(loaded, { ...targetOf(opts), worker: opts.worker, temporary: true });
      const view = new LiveView(opts.json ? 'json' : 'human');
      let release = () => undefined as void;
      try {
        const handle = await serving.agents.start(agent, prompt, {
          ...(opts.model ? { model: opts.model } : {}),
          ...(opts.skill.length ? { skills: opts.skill } : {}),
          ...(opts.tenant ? { tenant: opts.tenant } : {}),
          ...(opts.id ? { workflowId: opts.id } : {}),
        });
        release = cancelOnInterrupt(() => cancelRun(handle));
        const follow = async () => {
          for await (const event of handle.events()) view.event(event);
          return handle.result();
        };
        const result = await Promise.race([follow(), serving.running.then(() => never())]);
        view.finish(result);
      } catch (error) {
        view.stop();
        throw error instanceof CliError ? error : new CliError((error as Error).message);
      } finally {
        release();
        await serving.close();
      }
    });
}

function never(): never {
  throw new CliError('The worker of this process stopped before the run ended.');
}
