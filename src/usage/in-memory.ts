import { mayReplace, type WriteAttempt } from '../memory/types.ts';
import { MINUTE_MS, startOfUtcDay } from './ledger-keys.ts';
import { matches } from './filter.ts';
import { sumEntries } from './sums.ts';
import type {
  AdmissionCounts,
  AdmissionRequest,
  AdmissionScopes,
  UsageEntry,
  UsageFilter,
  UsageGroupBy,
  UsageStore,
  UsageSums,
} from './types.ts';

/** A usage ledger in this process: for tests and for a worker whose memory store is in memory too. */
export class InMemoryUsageStore implements UsageStore {
  readonly #entries = new Map<string, { entry: UsageEntry; attempt: WriteAttempt | undefined }>();
  /** Concurrency slots: workflow id → its tenant and agent. */
  readonly #slots = new Map<string, { tenant: string; agent: string }>();

  async record(entry: UsageEntry, attempt?: WriteAttempt): Promise<void> {
    if (!mayReplace(this.#entries.get(entry.key)?.attempt, attempt)) return;
    this.#entries.set(entry.key, { entry: structuredClone(entry), attempt });
  }

  async entries(filter: UsageFilter = {}): Promise<UsageEntry[]> {
    return [...this.#entries.values()]
      .map(({ entry }) => structuredClone(entry))
      .filter((entry) => matches(entry, filter))
      .sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async sums(filter: UsageFilter, groupBy?: UsageGroupBy): Promise<UsageSums[]> {
    return sumEntries(await this.entries(filter), groupBy);
  }

  async admit<R>(
    request: AdmissionRequest,
    decide: (counts: AdmissionScopes) => R | undefined,
  ): Promise<R | undefined> {
    // Synchronous from here to the end: nothing else in this process runs in between.
    const slot = { tenant: request.tenant, agent: request.agent };
    if (this.#slots.has(request.workflowId) || this.#entries.has(request.start.key)) {
      this.#slots.set(request.workflowId, slot);
      return undefined;
    }
    const refused = decide({
      tenant: this.#counts(request, undefined),
      agent: this.#counts(request, request.agent),
    });
    if (refused !== undefined) return refused;
    this.#slots.set(request.workflowId, slot);
    this.#entries.set(request.start.key, { entry: structuredClone(request.start), attempt: undefined });
    return undefined;
  }

  /** The tenant's counts (of `agent`'s runs only, when given). */
  #counts(request: AdmissionRequest, agent: string | undefined): AdmissionCounts {
    const ours = (e: { tenant: string; agent: string }) =>
      e.tenant === request.tenant && (agent === undefined || e.agent === agent);
    const lines = [...this.#entries.values()].map(({ entry }) => entry).filter(ours);
    return {
      running: [...this.#slots].filter(([, slot]) => ours(slot)).map(([id]) => id),
      recentStarts: lines
        .filter((e) => e.runs > 0 && e.at > request.now - MINUTE_MS)
        .map((e) => e.at)
        .sort((a, b) => a - b),
      tokensToday: lines
        .filter((e) => e.at >= startOfUtcDay(request.now))
        .reduce((sum, e) => sum + e.total_tokens, 0),
    };
  }

  async release(workflowId: string): Promise<void> {
    this.#slots.delete(workflowId);
  }

  async tokensSince(tenant: string, since: Date, agent?: string): Promise<number> {
    const lines = await this.entries({ tenant, since, ...(agent !== undefined ? { agent } : {}) });
    return lines.reduce((sum, e) => sum + e.total_tokens, 0);
  }
}
