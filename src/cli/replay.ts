import type { Duration } from '@temporalio/common';
import type { Command } from 'commander';
import type { ReplayHistoriesOptions } from '../deploy/replay.ts';
import { connect, type ConnectOptions } from './connect.ts';
import { loadOptionalConfig } from './config.ts';
import { CliError, note, paint, printJson, UsageError } from './output.ts';
import { withTargetOptions } from './target.ts';

interface ReplayCommandOptions extends ConnectOptions {
  since?: string;
  limit?: string;
  query?: string;
  dir?: string;
}

export function registerReplay(program: Command): void {
  withTargetOptions(
    program
      .command('replay')
      .description(
        'Replay recent histories of every agent workflow against this build: exits 1 naming each one it would break',
      ),
  )
    .option('--since <duration>', 'workflows started within this long, e.g. 24h or 7d', '7d')
    .option('--limit <n>', 'at most this many histories of each workflow type', '20')
    .option(
      '--query <visibility query>',
      'only workflows that also match this, e.g. "TaskQueue = \'agents\'"',
    )
    .option('--dir <folder>', 'replay the saved histories (*.json) of this folder instead of downloading')
    .option('--json', 'print the report as one JSON line')
    .action(async (opts: ReplayCommandOptions, cmd: Command) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new UsageError('--limit takes a whole number of at least 1.');
      const bundle = process.env.TOOLKIT_AGENT_WORKFLOW_BUNDLE;
      const workflowBundle = bundle ? { workflowBundle: { codePath: bundle } } : {};
      let options: ReplayHistoriesOptions;
      let close = async (): Promise<void> => undefined;
      if (opts.dir) {
        const loaded = await loadOptionalConfig(cmd.optsWithGlobals<{ config?: string }>().config);
        const encryption = loaded?.config.encryption;
        options = { dir: opts.dir, ...workflowBundle, ...(encryption ? { encryption } : {}) };
      } else {
        const { agents, encryption } = await connect(opts, cmd);
        close = () => agents.close();
        options = {
          client: agents.client,
          since: opts.since as Duration,
          limit,
          ...(opts.query ? { query: opts.query } : {}),
          ...workflowBundle,
          ...(encryption ? { encryption } : {}),
        };
      }
      const { replayHistories } = await import('../deploy/replay.ts');
      const report = await replayHistories(options).finally(close);
      if (opts.json) printJson(report);
      else {
        const counts = Object.entries(report.replayed).map(([type, n]) => `${type} ${n}`);
        const total = Object.values(report.replayed).reduce((sum, n) => sum + n, 0);
        process.stdout.write(
          `Replayed ${total} histories${counts.length ? ` (${counts.join(', ')})` : ''}\n`,
        );
        for (const failure of report.failures) {
          process.stdout.write(
            `${paint('red', 'would break')} ${failure.workflowType} ${paint('bold', failure.workflowId)} (run ${failure.runId}): ${failure.reason}\n`,
          );
        }
        if (total === 0) note('Nothing to replay: no agent workflow matched (see --since, --query).');
      }
      if (report.failures.length) {
        throw new CliError(
          `${report.failures.length} workflow(s) would fail on this build: keep their version's workers, or change the code behind patched() (docs/production.md).`,
        );
      }
    });
}
