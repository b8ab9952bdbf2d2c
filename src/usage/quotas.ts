import { ConfigurationError, type QuotaExceededDetails } from '../errors.ts';
import { MINUTE_MS, startOfUtcDay } from './ledger-keys.ts';
import type { AdmissionCounts } from './types.ts';

/** The limits of one tenant; each is checked against the shared usage ledger. */
export interface QuotaLimits {
  /** Tokens (input + output) per UTC day: a run is refused at its start once they are spent, and a running one stops with `stop_reason: 'quota'` before its next step. */
  maxTokensPerDay?: number;
  /** Runs (and chat turns) started in any 60 seconds. */
  maxRunsPerMinute?: number;
  /** Runs (and chat turns) running at once, across every worker that shares the ledger. */
  maxConcurrentRuns?: number;
}

/**
 * Quotas on `createAgentWorker` (for the whole fleet: they count all of a tenant's runs) or on an
 * agent (they count the tenant's runs of that agent; both apply). `perTenant` applies to every tenant (runs without a tenant count as
 * the tenant `''`); `tenants` overrides it for named tenants, field by field.
 *
 * @example
 * quotas: { perTenant: { maxConcurrentRuns: 5, maxTokensPerDay: 2_000_000 }, tenants: { acme: { maxConcurrentRuns: 20 } } }
 */
export interface Quotas {
  perTenant?: QuotaLimits;
  tenants?: Record<string, QuotaLimits>;
}

const FIELDS = ['maxTokensPerDay', 'maxRunsPerMinute', 'maxConcurrentRuns'] as const;

/** Checks `quotas` when the worker is made, so a typo fails at start-up. */
export function validateQuotas(where: string, quotas: Quotas | undefined): Quotas | undefined {
  if (quotas === undefined) return undefined;
  const check = (path: string, limits: QuotaLimits | undefined) => {
    if (limits === undefined) return;
    for (const [field, value] of Object.entries(limits)) {
      if (!(FIELDS as readonly string[]).includes(field))
        throw new ConfigurationError(`${where}: unknown quota ${path}.${field}; use ${FIELDS.join(', ')}.`);
      if (value !== undefined && (!Number.isInteger(value) || value < 0))
        throw new ConfigurationError(`${where}: ${path}.${field} must be a whole number of at least 0.`);
    }
  };
  check('quotas.perTenant', quotas.perTenant);
  for (const [tenant, limits] of Object.entries(quotas.tenants ?? {}))
    check(`quotas.tenants.${tenant}`, limits);
  return quotas;
}

/** The limits of `quotas` for `tenant`: a named tenant's over `perTenant`, field by field. */
export function limitsFor(tenant: string, quotas: Quotas | undefined): QuotaLimits {
  return { ...quotas?.perTenant, ...quotas?.tenants?.[tenant] };
}

/** Whether any limit is set (else the ledger is not asked before a run). */
export function hasLimits(limits: QuotaLimits): boolean {
  return FIELDS.some((field) => limits[field] !== undefined);
}

/** The first start quota `counts` would pass, with when it resets; undefined when the run may start. */
export function startRefusal(
  tenant: string,
  limits: QuotaLimits,
  counts: AdmissionCounts,
  now: number,
): QuotaExceededDetails | undefined {
  if (limits.maxTokensPerDay !== undefined && counts.tokensToday >= limits.maxTokensPerDay)
    return { quota: 'maxTokensPerDay', tenant, limit: limits.maxTokensPerDay, resetsAt: nextUtcDay(now) };
  if (limits.maxRunsPerMinute !== undefined && counts.recentStarts.length >= limits.maxRunsPerMinute) {
    // Frees up when enough of the last minute's starts fall out of the window.
    const freeing = counts.recentStarts[counts.recentStarts.length - limits.maxRunsPerMinute] ?? now;
    return {
      quota: 'maxRunsPerMinute',
      tenant,
      limit: limits.maxRunsPerMinute,
      resetsAt: new Date(freeing + MINUTE_MS).toISOString(),
    };
  }
  if (limits.maxConcurrentRuns !== undefined && counts.running.length >= limits.maxConcurrentRuns)
    return { quota: 'maxConcurrentRuns', tenant, limit: limits.maxConcurrentRuns };
  return undefined;
}

/** The daily token quota, checked before a model step: the details when it is spent. */
export function tokenRefusal(
  tenant: string,
  limits: QuotaLimits,
  tokensToday: number,
  now: number,
): QuotaExceededDetails | undefined {
  if (limits.maxTokensPerDay === undefined || tokensToday < limits.maxTokensPerDay) return undefined;
  return { quota: 'maxTokensPerDay', tenant, limit: limits.maxTokensPerDay, resetsAt: nextUtcDay(now) };
}

/** The start of the next UTC day (when a daily quota resets), as ISO 8601. */
function nextUtcDay(now: number): string {
  return new Date(startOfUtcDay(now) + 24 * 60 * MINUTE_MS).toISOString();
}
