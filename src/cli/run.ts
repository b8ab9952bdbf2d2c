import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { loadConfig, pickAgent } from './config.ts';
import { targetOf, withTargetOptions } from './target.ts';
import { decideApproval } from './approvals.ts';
import { LiveView } from './live-view.ts';
import { CliError, EXIT, note, printError, UsageError } from './output.ts';
import { OutputValidationError } from '../errors.ts';

interface RunOptions {
  agent?: string;
  model?: string;
  skill: string[];
  tenant?: string;
  id?: string;
  json?: boolean;
  approveAll?: boolean;
  outputSchema?: string;
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

/** Stop reasons that make `run` exit with 1: the run did not get to answer. */
const FAILED_STOPS = new Set([
  'cancelled',
  'deadline',
  'budget',
  'invalid_output',
  'authorization_timeout',
  'quota',
  'guardrail',
]);

/** The JSON Schema in `path`, for `--output-schema`. */
export async function readOutputSchema(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`Could not read the output schema ${path}: ${(error as Error).message}`);
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `${path} is not JSON (${(error as Error).message}); --output-schema takes a JSON Schema file.`,
    );
  }
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) {
    throw new UsageError(
      `${path} is not a JSON Schema object; --output-schema takes one, e.g. {"type": "object", ...}.`,
    );
  }
  return schema as Record<string, unknown>;
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
    .option(
      '--output-schema <file>',
      'answer with a JSON object matching this JSON Schema file (printed as JSON; with --json, in the last line)',
    )
    .option('--no-worker', 'do not serve the agents in this process (a `toolkit-agent worker` does)')
    .addHelpText(
      'after',
      '\nExit codes: 0 the run answered (completed or max_iterations), 1 it failed, was cancelled (Ctrl-C),\npassed its deadline or budget, gave no answer matching --output-schema, or every tool call it made failed, 2 usage. Tool calls that need approval are asked y/n on a terminal.',
    )
    .action(async (prompt: string, opts: RunOptions, cmd: Command) => {
      const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      const agent = pickAgent(loaded.config, opts.agent);
      const output = opts.outputSchema ? await readOutputSchema(opts.outputSchema) : undefined;
      const { serve } = await import('./serving.ts');
      const serving = await serve(loaded, { ...targetOf(opts), worker: opts.worker, temporary: true });
      const view = new LiveView(opts.json ? 'json' : 'human', { structured: output !== undefined });
      let release = () => undefined as void;
      try {
        const handle = await serving.agents.startRun(agent, prompt, {
          ...(opts.model ? { model: opts.model } : {}),
          ...(opts.skill.length ? { skills: opts.skill } : {}),
          ...(opts.tenant ? { tenant: opts.tenant } : {}),
          ...(opts.id ? { workflowId: opts.id } : {}),
          ...(output ? { output } : {}),
        });
        release = cancelOnInterrupt(() => handle.cancel('cancelled at the terminal (Ctrl-C)'));
        const calls = { completed: 0, failed: 0 };
        const follow = async () => {
          for await (const event of handle.events()) {
            view.event(event);
            if (event.type === 'tool_completed') calls.completed += 1;
            if (event.type === 'tool_failed') calls.failed += 1;
            if (event.type === 'approval_requested') {
              await decideApproval(event, handle, {
                approveAll: opts.approveAll,
                workflowId: handle.workflowId,
                view,
                ask: !opts.json,
              });
            }
          }
          return handle.result();
        };
        const result = await Promise.race([follow(), serving.running.then(() => never())]);
        view.finish(result);
        if (FAILED_STOPS.has(result.metadata.stop_reason)) process.exitCode = EXIT.failure;
        if (calls.failed > 0 && calls.completed === 0) {
          // The answer was written without a single tool result: said, and not a success for scripts.
          printError(
            `every tool call of this run failed (${calls.failed}), so its answer is not backed by any tool; the reasons are above.`,
          );
          process.exitCode = EXIT.failure;
        }
      } catch (error) {
        view.stop();
        if (error instanceof OutputValidationError && !opts.json) {
          process.stdout.write(`${error.raw}\n`); // the last answer, for a person to see what went wrong
        }
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
