import { mayReplace, type WriteAttempt } from '../memory/types.ts';
import { MINUTE_MS, startOfUtcDay } from './ledger-keys.ts';
import { matches } from './filter.ts';
import { sumEntries } from './sums.ts';
import type {
  AdmissionCounts,
  AdmissionRequest,
  UsageEntry,
  UsageFilter,
  UsageGroupBy,
  UsageStore,
  UsageSums,
} from './types.ts';

/** A usage ledger in this process: for tests and for a worker whose memory store is in memory too. */
export class InMemoryUsageStore implements UsageStore {
  readonly #entries = new Map<string, { entry: UsageEntry; attempt: WriteAttempt | undefined }>();
  /** Concurrency slots: workflow id → tenant. */
  readonly #slots = new Map<string, string>();

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
    decide: (counts: AdmissionCounts) => R | undefined,
  ): Promise<R | undefined> {
    // Synchronous from here to the end: nothing else in this process runs in between.
    if (this.#slots.has(request.workflowId) || this.#entries.has(request.start.key)) {
      this.#slots.set(request.workflowId, request.tenant);
      return undefined;
    }
    const mine = [...this.#entries.values()]
      .map(({ entry }) => entry)
      .filter((e) => e.tenant === request.tenant);
    const refused = decide({
      running: [...this.#slots].filter(([, tenant]) => tenant === request.tenant).map(([id]) => id),
      recentStarts: mine
        .filter((e) => e.runs > 0 && e.at > request.now - MINUTE_MS)
        .map((e) => e.at)
        .sort((a, b) => a - b),
      tokensToday: mine
        .filter((e) => e.at >= startOfUtcDay(request.now))
        .reduce((sum, e) => sum + e.total_tokens, 0),
    });
    if (refused !== undefined) return refused;
    this.#slots.set(request.workflowId, request.tenant);
    this.#entries.set(request.start.key, { entry: structuredClone(request.start), attempt: undefined });
    return undefined;
  }

  async release(workflowId: string): Promise<void> {
    this.#slots.delete(workflowId);
  }

  async tokensSince(tenant: string, since: Date): Promise<number> {
    return (await this.entries({ tenant, since })).reduce((sum, e) => sum + e.total_tokens, 0);
  }
}
