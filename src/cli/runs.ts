import { GuardrailTripped } from '../errors.ts';
import type { AgentResult } from '../common/run.ts';
import type { Command } from 'commander';
import type { AgentRunHandle } from '../client/agent-client.ts';
import type { AgentEvent } from '../common/events.ts';
import { connect, type ConnectOptions } from './connect.ts';
import type { ListRunsOptions } from '../visibility/list.ts';
import { asText, CliError, paint, printJson, printTable, UsageError } from './output.ts';
import { withTargetOptions } from './target.ts';

interface ListOptions
  extends ConnectOptions, Pick<ListRunsOptions, 'agent' | 'tenant' | 'status' | 'topLevel'> {
  kind?: string;
  taskQueue?: string;
  limit: string;
}

function printEvent(event: AgentEvent, json: boolean | undefined): void {
  if (json) return printJson(event);
  process.stdout.write(
    `${paint('dim', String(event.seq).padStart(4))} ${paint('bold', event.type.padEnd(20))} ${event.message}\n`,
  );
}

export function registerRuns(program: Command): void {
  const runs = program.command('runs').description('Inspect and control runs by workflow id');

  withTargetOptions(
    runs
      .command('list')
      .description("The config's runs and chat sessions, newest first (Temporal visibility)"),
  )
    .option('--agent <name>', 'only this agent')
    .option('--tenant <id>', 'only this tenant')
    .option('--status <status>', 'running, completed, failed, cancelled, terminated or timed_out')
    .option('--kind <kind>', 'run or chat')
    .option('--task-queue <name>', "the task queue to list (default: the config's)")
    .option('--top-level', 'leave out sub-agent runs')
    .option('-n, --limit <n>', 'at most this many', '20')
    .option('--json', 'print a JSON array')
    .action(async (opts: ListOptions, cmd: Command) => {
      if (opts.kind !== undefined && opts.kind !== 'run' && opts.kind !== 'chat')
        throw new UsageError(`--kind is run or chat, not ${JSON.stringify(opts.kind)}.`);
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new UsageError('--limit takes a whole number above 0.');
      const { agents } = await connect(opts, cmd, opts.taskQueue);
      try {
        const listed = await agents.list({
          ...(opts.agent ? { agent: opts.agent } : {}),
          ...(opts.tenant ? { tenant: opts.tenant } : {}),
          ...(opts.status ? { status: opts.status } : {}),
          ...(opts.kind ? { kind: opts.kind } : {}),
          ...(opts.topLevel ? { topLevel: true } : {}),
          limit,
        });
        if (opts.json) return printJson(listed);
        printTable(
          ['WORKFLOW ID', 'AGENT', 'KIND', 'STATUS', 'STARTED'],
          listed.map((run) => [
            run.workflowId,
            run.agent ?? '',
            run.kind,
            run.waitingForAuthorization.length
              ? `${run.status} (authorize ${run.waitingForAuthorization.join(', ')})`
              : run.status,
            run.startTime.toISOString(),
          ]),
        );
      } finally {
        await agents.close();
      }
    });

  withTargetOptions(
    runs
      .command('show <id>')
      .description("A run's status, its answer once it finished, and the tree of its sub-agent runs"),
  )
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
        if (description.status.name === 'RUNNING') {
          info.pending_approvals = await handle.pendingApprovals().catch(() => []);
          const waiting = await handle.pendingAuthorizations().catch(() => []);
          // People get the URL to open; JSON gets the whole request.
          info.pending_authorizations = opts.json
            ? waiting
            : waiting.map((p) => `${p.credential_key} (${p.tool}): open ${p.url}`).join('\n');
        } else if (description.status.name === 'COMPLETED') {
          const result = await handle.result().catch((error: unknown) => {
            // A run a guardrail stopped completed: said with the check that tripped and what it said.
            if (!(error instanceof GuardrailTripped)) throw error;
            info.guardrail = opts.json
              ? (error.result as AgentResult<unknown>).metadata.guardrail
              : `${error.kind} guardrail "${error.check}"${error.tool ? ` on ${error.tool}` : ''} tripped: ${error.reason}`;
            return error.result as AgentResult<unknown>;
          });
          Object.assign(info, { output: result.output, metadata: result.metadata });
          // Servers the run went without are printed (people), and are in metadata (JSON).
          const unavailable = result.metadata.unavailable_mcps ?? [];
          if (!opts.json && unavailable.length)
            info.unavailable_mcps = unavailable
              .map(({ server, reason }) => `${server}: ${reason}`)
              .join('; ');
        } else {
          info.error = await handle.result().then(
            () => null,
            (error: Error) => error.message,
          );
        }
        const { subRunTree, treeLines } = await import('../subagents/run-tree.ts');
        const tree = await subRunTree(agents.client, id);
        if (opts.json) return printJson({ ...info, sub_runs: tree });
        for (const [key, value] of Object.entries(info)) {
          if (key === 'metadata' || value === null) continue;
          if (Array.isArray(value) && !value.length) continue;
          process.stdout.write(`${paint('bold', `${key}:`.padEnd(12))} ${asText(value)}\n`);
        }
        if (tree.length) {
          process.stdout.write(`${paint('bold', 'sub-runs:')}\n`);
          for (const line of treeLines(tree, '  ')) process.stdout.write(`${line}\n`);
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

  withTargetOptions(
    runs.command('cancel <id>').description('Cancel a run: it stops cleanly and ends as cancelled'),
  )
    .option('--reason <text>', 'why (shown in its run_cancelled event)', 'cancelled from the command line')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: ConnectOptions & { reason: string }, cmd: Command) => {
      await control(id, opts, cmd, { cancelled: true }, (handle) => handle.cancel(opts.reason));
    });

  withTargetOptions(
    runs.command('approve <id> <call>').description('Approve a tool call that waits for approval'),
  )
    .option('--note <text>', 'a note kept in its approval_granted event')
    .option('--json', 'print JSON')
    .action(async (id: string, call: string, opts: ConnectOptions & { note?: string }, cmd: Command) => {
      await control(id, opts, cmd, { call_id: call, approved: true }, (handle) =>
        handle.approve(call, opts.note === undefined ? {} : { note: opts.note }),
      );
    });

  withTargetOptions(
    runs.command('reject <id> <call>').description('Decline a tool call that waits for approval'),
  )
    .option('--reason <text>', 'why (the model is told)', 'declined from the command line')
    .option('--json', 'print JSON')
    .action(async (id: string, call: string, opts: ConnectOptions & { reason: string }, cmd: Command) => {
      await control(id, opts, cmd, { call_id: call, approved: false }, (handle) =>
        handle.reject(call, opts.reason),
      );
    });
}

/** Sends one control (cancel, approve, reject) to a run; a refusal (e.g. an unknown call) exits 1. */
async function control(
  id: string,
  opts: ConnectOptions,
  cmd: Command,
  done: Record<string, unknown>,
  send: (handle: AgentRunHandle) => Promise<void>,
): Promise<void> {
  const { agents } = await connect(opts, cmd);
  try {
    await send(agents.getHandle(id));
    if (opts.json) printJson({ workflow_id: id, ...done });
    else
      process.stdout.write(
        `${paint('green', '✓')} ${id}: ${Object.keys(done).includes('cancelled') ? 'cancelling' : done.approved ? `approved ${asText(done.call_id)}` : `declined ${asText(done.call_id)}`}\n`,
      );
  } finally {
    await agents.close();
  }
}
