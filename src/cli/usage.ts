import type { Command } from 'commander';
import { loadOptionalConfig } from './config.ts';
import { printJson, printTable, UsageError } from './output.ts';
import type { UsageQuery } from '../usage/query.ts';
import type { UsageTotals } from '../usage/summary.ts';
import type { UsageGroupBy } from '../usage/types.ts';

interface UsageOptions {
  tenant?: string;
  agent?: string;
  since: string;
  until?: string;
  groupBy?: string;
  json?: boolean;
}

/**
 * `toolkit-agent usage`: what runs used, read from the usage ledger (the config's `usageStore`,
 * else beside its memory store, else the default SQLite file), with cost when the config has `pricing`.
 */
export function registerUsage(program: Command): void {
  program
    .command('usage')
    .description(
      'Tokens, prompt-cache hit rate, runs, tool calls and cost from the usage ledger, per tenant, agent, model or day',
    )
    .option('--tenant <id>', 'only this tenant')
    .option('--agent <name>', 'only this agent')
    .option('--since <when>', 'from: a duration back (30m, 12h, 7d, 2w) or a date', '7d')
    .option('--until <when>', 'before: a duration back or a date')
    .option('--group-by <what>', 'tenant, agent, model or day (default: tenant)')
    .option('--json', 'print the report as JSON')
    .action(async (opts: UsageOptions, cmd: Command) => {
      const query: UsageQuery = {
        ...(opts.tenant !== undefined ? { tenant: opts.tenant } : {}),
        ...(opts.agent !== undefined ? { agent: opts.agent } : {}),
        since: opts.since,
        ...(opts.until !== undefined ? { until: opts.until } : {}),
        groupBy: (opts.groupBy ?? 'tenant') as UsageGroupBy,
      };
      const [{ usageStoreFollowing }, { usageFilter }, { summarizeUsage }, { cacheHitRate }] =
        await Promise.all([
          import('../usage/default-store.ts'),
          import('../usage/query.ts'),
          import('../usage/summary.ts'),
          import('../usage/hit-rate.ts'),
        ]);
      let filter;
      try {
        filter = usageFilter(query);
      } catch (error) {
        throw new UsageError(`${(error as Error).message.replace(/^groupBy/, '--group-by')}`);
      }
      const loaded = await loadOptionalConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      const config = loaded?.config;
      const store = config?.usageStore ?? usageStoreFollowing(config?.memoryStore);
      try {
        const report = summarizeUsage(await store.sums(filter, query.groupBy), {
          groupBy: query.groupBy!,
          ...(config?.pricing ? { pricing: config.pricing } : {}),
        });
        if (opts.json) return printJson(report);
        const priced = report.totals.cost !== undefined;
        const row = (key: string, t: UsageTotals) => [
          key || '(no tenant)',
          String(t.runs),
          String(t.input_tokens),
          String(t.output_tokens),
          cacheHitRate(t),
          String(t.tool_calls),
          ...(priced ? [`$${(t.cost ?? 0).toFixed(4)}`] : []),
        ];
        printTable(
          [
            query.groupBy!.toUpperCase(),
            'RUNS',
            'INPUT',
            'OUTPUT',
            'CACHE HIT',
            'TOOL CALLS',
            ...(priced ? ['COST'] : []),
          ],
          [...(report.groups ?? []).map((g) => row(g.key, g)), row('total', report.totals)],
        );
        if (report.unpriced_models?.length)
          process.stderr.write(
            `No price in the config's pricing for: ${report.unpriced_models.join(', ')}\n`,
          );
      } finally {
        if (!config?.usageStore) await store.close?.();
      }
    });
}
