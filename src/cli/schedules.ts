import type { Command } from 'commander';
import type { AgentScheduleOptions, ScheduleOverlap } from '../triggers/schedules.ts';
import { connect, type ConnectOptions } from './connect.ts';
import { note, printJson, printTable, UsageError } from './output.ts';
import { repeatable } from './listen.ts';
import { withTargetOptions } from './target.ts';

interface CreateOptions extends ConnectOptions {
  agent: string;
  prompt: string;
  cron?: string[];
  every?: string;
  timezone?: string;
  overlap?: ScheduleOverlap;
  session?: string;
  tenant?: string;
  paused?: boolean;
}

/** `every` as milliseconds when it is a number, else as given (`15m`, `1h`, `1 day`). */
function duration(value: string): number | string {
  return /^\d+$/.test(value) ? Number(value) : value;
}

export function registerSchedules(program: Command): void {
  const schedules = program
    .command('schedules')
    .description("Agent runs on Temporal Schedules, on the config's task queue");

  withTargetOptions(
    schedules.command('create <id>').description('Create a schedule: a run (or a chat message) per firing'),
  )
    .requiredOption('--agent <name>', 'the agent each firing runs')
    .requiredOption('--prompt <text>', 'the prompt of each run')
    .option('--cron <expr>', 'a cron expression, e.g. "0 9 * * MON" (repeatable)', repeatable)
    .option('--every <duration>', 'an interval: milliseconds or 15m, 1h, 1 day')
    .option('--timezone <tz>', 'the IANA time zone of --cron, e.g. Europe/Berlin')
    .option(
      '--overlap <policy>',
      'skip (default), buffer_one, buffer_all, cancel_other, terminate_other, allow_all',
    )
    .option('--session <id>', 'send the prompt into this chat session instead of starting a run')
    .option('--tenant <id>', 'the tenant whose credentials the runs use')
    .option('--paused', 'create it paused')
    .option('--json', 'print the schedule as JSON')
    .action(async (id: string, opts: CreateOptions, cmd: Command) => {
      if (Boolean(opts.cron?.length) === Boolean(opts.every))
        throw new UsageError('Give either --cron or --every.');
      const options: AgentScheduleOptions = {
        agent: opts.agent,
        prompt: opts.prompt,
        ...(opts.cron?.length ? { cron: opts.cron } : {}),
        ...(opts.every ? { every: duration(opts.every) } : {}),
        ...(opts.timezone ? { timezone: opts.timezone } : {}),
        ...(opts.overlap ? { overlap: opts.overlap } : {}),
        ...(opts.session ? { session: opts.session } : {}),
        ...(opts.tenant ? { tenant: opts.tenant } : {}),
        ...(opts.paused ? { paused: true } : {}),
      };
      const { agents } = await connect(opts, cmd);
      try {
        await agents.schedules.create(id, options);
        const info = await agents.schedules.describe(id);
        if (opts.json) printJson(info);
        else note(`Created schedule ${id}; next: ${info.nextFireTimes[0]?.toISOString() ?? '(paused)'}`);
      } finally {
        await agents.close();
      }
    });

  withTargetOptions(schedules.command('list').description("The config's agent schedules"))
    .option('--json', 'print a JSON array')
    .action(async (opts: ConnectOptions, cmd: Command) => {
      const { agents } = await connect(opts, cmd);
      try {
        const list = await agents.schedules.list();
        if (opts.json) return printJson(list);
        printTable(
          ['ID', 'AGENT', 'STATE', 'NEXT', 'TARGET'],
          list.map((s) => [
            s.id,
            s.agent,
            s.paused ? 'paused' : 'active',
            s.nextFireTimes[0]?.toISOString() ?? '-',
            s.session ? `session ${s.session}` : 'run',
          ]),
        );
      } finally {
        await agents.close();
      }
    });

  for (const [name, description] of [
    ['pause', 'Pause a schedule'],
    ['unpause', 'Unpause a schedule'],
    ['trigger', 'Fire a schedule now (its overlap policy applies)'],
    ['rm', 'Delete a schedule (runs it started go on)'],
  ] as const) {
    withTargetOptions(schedules.command(`${name} <id>`).description(description)).action(
      async (id: string, opts: ConnectOptions, cmd: Command) => {
        const { agents } = await connect(opts, cmd);
        try {
          const act = name === 'rm' ? 'delete' : name;
          await agents.schedules[act](id);
          note(
            `${name === 'rm' ? 'Deleted' : name === 'trigger' ? 'Triggered' : `${name[0]!.toUpperCase()}${name.slice(1)}d`} schedule ${id}.`,
          );
        } finally {
          await agents.close();
        }
      },
    );
  }
}
