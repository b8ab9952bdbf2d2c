import type { AgentClient } from '../client/agent-client.ts';
import { startOfUtcDay } from '../usage/ledger-keys.ts';
import { usageFilter, type UsageQuery } from '../usage/query.ts';
import { limitsFor, type Quotas } from '../usage/quotas.ts';
import { costOf, priceOf, summarizeUsage, type Pricing, type UsageReport } from '../usage/summary.ts';
import type { UsageGroupBy, UsageStore } from '../usage/types.ts';

/** Where the Cost view reads: the usage ledger, its prices and the quotas to show. */
export interface StudioUsage {
  /** The ledger the workers write (default: the client's, see `AgentClient.usage`; the Runs view then shows no tokens or cost per run). */
  store?: UsageStore;
  /** Dollars per million tokens by model: the view then shows cost. */
  pricing?: Pricing;
  /** The quotas the workers enforce: the view shows each tenant's tokens left today. */
  quotas?: Quotas;
}

/** A tenant's daily token quota and what is left of it today (UTC). */
export interface QuotaStanding {
  tenant: string;
  maxTokensPerDay: number;
  usedToday: number;
  left: number;
}

/** What the Cost view shows: the same reports as `toolkit-agent usage --json`, by day, agent and tenant, and the quotas. */
export interface CostReport {
  byDay: UsageReport;
  byAgent: UsageReport;
  byTenant: UsageReport;
  quotas: QuotaStanding[];
}

/** The Cost view's reports for the query's `since` (default 7d), `until`, `tenant` and `agent`. */
export async function costReport(
  client: AgentClient,
  usage: StudioUsage,
  params: URLSearchParams,
): Promise<CostReport> {
  const query: UsageQuery = {
    since: params.get('since') || '7d',
    ...(params.get('until') ? { until: params.get('until')! } : {}),
    ...(params.get('tenant') ? { tenant: params.get('tenant')! } : {}),
    ...(params.get('agent') ? { agent: params.get('agent')! } : {}),
  };
  const report = (groupBy: UsageGroupBy, q: UsageQuery = query) =>
    usageReport(client, usage, { ...q, groupBy });
  const [byDay, byAgent, byTenant, today] = await Promise.all([
    report('day'),
    report('agent'),
    report('tenant'),
    report('tenant', { since: new Date(startOfUtcDay(Date.now())) }),
  ]);
  return { byDay, byAgent, byTenant, quotas: quotaStandings(usage.quotas, today) };
}

function usageReport(client: AgentClient, usage: StudioUsage, query: UsageQuery): Promise<UsageReport> {
  const pricing = usage.pricing ? { pricing: usage.pricing } : {};
  if (!usage.store) return client.usage({ ...query, ...pricing });
  const store = usage.store;
  return store
    .sums(usageFilter(query), query.groupBy)
    .then((sums) => summarizeUsage(sums, { groupBy: query.groupBy!, ...pricing }));
}

function quotaStandings(quotas: Quotas | undefined, today: UsageReport): QuotaStanding[] {
  if (!quotas) return [];
  const tenants = new Set([...Object.keys(quotas.tenants ?? {}), ...(today.groups ?? []).map((g) => g.key)]);
  return [...tenants].flatMap((tenant) => {
    const max = limitsFor(tenant, quotas).maxTokensPerDay;
    if (max === undefined) return [];
    const group = today.groups?.find((g) => g.key === tenant);
    const usedToday = group ? group.input_tokens + group.output_tokens : 0;
    return [{ tenant, maxTokensPerDay: max, usedToday, left: Math.max(0, max - usedToday) }];
  });
}

/** Tokens and cost of one run (its turns' and sub-runs' lines of the ledger that carry its workflow id). */
export interface RunFigures {
  tokens: number;
  cost?: number;
}

/**
 * The figures of each of `workflowIds` from the ledger lines written since `since` (none without
 * `usage.store`); runs the ledger has no line of are left out.
 */
export async function runFigures(
  usage: StudioUsage,
  workflowIds: string[],
  since: Date,
): Promise<Record<string, RunFigures>> {
  const store = usage.store;
  if (!store || workflowIds.length === 0) return {};
  const wanted = new Set(workflowIds);
  const figures: Record<string, RunFigures> = {};
  for (const entry of await store.entries({ since })) {
    if (!wanted.has(entry.workflow_id)) continue;
    const run = (figures[entry.workflow_id] ??= { tokens: 0 });
    run.tokens += entry.input_tokens + entry.output_tokens;
    const price = usage.pricing && priceOf(usage.pricing, entry.model);
    if (price) run.cost = (run.cost ?? 0) + costOf(entry, price);
  }
  return figures;
}
