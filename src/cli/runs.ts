import type { Command } from 'commander';
import type { AgentClient } from '../client/agent-client.ts';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import type { AgentEvent } from '../common/events.ts';
import { loadOptionalConfig } from './config.ts';
import { asText, CliError, paint, printJson } from './output.ts';
import { resolveTarget, targetOf, withTargetOptions, type Target, type TargetOptions } from './target.ts';

interface ConnectOptions extends TargetOptions {
  json?: boolean;
}

/** A client on the running server, the config's cluster or `--address`. */
async function connect(
  opts: ConnectOptions,
  cmd: Command,
): Promise<{ agents: AgentClient; target: Target; encryption?: PayloadEncryptionOptions }> {
  const loaded = await loadOptionalConfig(cmd.optsWithGlobals<{ config?: string }>().config);
  const target = await resolveTarget(targetOf(opts), loaded?.config, false);
  const encryption = loaded?.config.encryption;
  const { AgentClient } = await import('../client/agent-client.ts');
  const agents = await AgentClient.connect({
    taskQueue: 'unused',
    temporal: target.temporal,
    ...(encryption ? { encryption } : {}),
  });
  return { agents, target, ...(encryption ? { encryption } : {}) };
}

function printEvent(event: AgentEvent, json: boolean | undefined): void {
  if (json) return printJson(event);
  process.stdout.write(
    `${paint('dim', String(event.seq).padStart(4))} ${paint('bold', event.type.padEnd(20))} ${event.message}\n`,
  );
}

export function registerRuns(program: Command): void {
  const runs = program.command('runs').description('Inspect and control runs by workflow id');

  withTargetOptions(runs.command('show <id>').description("A run's status, and its answer once it finished"))
    .option('--json', 'print JSON')
    .action(async (id: string, opts: ConnectOptions, cmd: Command) => {
      const { agents } = await connect(opts, cmd);
      try {
        const handle = agents.getHandle(id);
        const description = await handle.workflow.describe().catch((error: Error) => {
          throw new CliError(`No run ${id}: ${error.message}`);
        });
        const info: Record<string, unknown> = {
          workflow_id: id,
          status: description.status.name,
          type: description.type,
          task_queue: description.taskQueue,
          start_time: description.startTime.toISOString(),
          close_time: description.closeTime?.toISOString() ?? null,
        };
        if (description.status.name === 'COMPLETED') {
          const result = await handle.result();
          Object.assign(info, { output: result.output, metadata: result.metadata });
        } else if (description.status.name !== 'RUNNING') {
          info.error = await handle.result().then(
            () => null,
            (error: Error) => error.message,
          );
        }
        if (opts.json) return printJson(info);
        for (const [key, value] of Object.entries(info)) {
          if (key === 'metadata' || value === null) continue;
          process.stdout.write(`${paint('bold', `${key}:`.padEnd(12))} ${asText(value)}\n`);
        }
      } finally {
        await agents.close();
      }
    });

  withTargetOptions(
    runs.command('events <id>').description("A run's events; with --follow, as they happen until it ends"),
  )
    .option('-f, --follow', 'keep printing events until the run ends')
    .option('--json', 'print NDJSON')
    .action(async (id: string, opts: ConnectOptions & { follow?: boolean }, cmd: Command) => {
      const { agents, target, encryption } = await connect(opts, cmd);
      try {
        const handle = agents.getHandle(id);
        const { withReader } = await import('./runs-reader.ts');
        if (opts.follow) {
          await withReader(target, encryption, handle, async () => {
            for await (const event of handle.events()) printEvent(event, opts.json);
          });
        } else {
          for (const event of await withReader(target, encryption, handle, () => handle.listEvents()))
            printEvent(event, opts.json);
        }
      } finally {
        await agents.close();
      }
    });

  withTargetOptions(runs.command('cancel <id>').description('Cancel a run'))
    .option('--json', 'print JSON')
    .action(async (id: string, opts: ConnectOptions, cmd: Command) => {
      const { agents } = await connect(opts, cmd);
      try {
        await agents.getHandle(id).workflow.cancel();
        if (opts.json) printJson({ workflow_id: id, cancelled: true });
        else process.stdout.write(`${paint('green', '✓')} asked ${id} to cancel\n`);
      } finally {
        await agents.close();
      }
    });
}
