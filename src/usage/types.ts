import type { WriteAttempt } from '../memory/types.ts';

/**
 * One line of the usage ledger, keyed by what Temporal gives (workflow id, run id, position), so a
 * retried or crashed activity writes the same line again instead of a second one. A model step
 * records its tokens (an embedding model its input tokens, for long-term memory); the end of a run or chat turn records its tool calls by tool, sub-runs and
 * wall time (and `runs: 1` for a run or turn that was started from outside, not a sub-run).
 */
export interface UsageEntry {
  /**
   * `<workflowId>/<runId>/step/<conversation>/<seq>`, `<workflowId>/<runId>/run/<conversation>/<seq>`
   * `<workflowId>/<runId>/embed/<conversation>/<remember|recall|observe>/<seq>` or
   * `<workflowId>/<runId>/embed/<conversation>/recall_memory/<callId>` (embedding tokens of
   * long-term memory) or `<workflowId>/<runId>/observe/<conversation>/<from>-<to>` (turns condensed
   * into observations).
   */
  key: string;
  /** When it happened, in milliseconds since the epoch. */
  at: number;
  /** The run's tenant (`''` when it has none); a sub-run counts in its parent's tenant. */
  tenant: string;
  agent: string;
  /** The model's name on the worker (an embedding model's: its embedder id). */
  model: string;
  workflow_id: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_write_5m_tokens: number;
  cache_write_1h_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  /** 1 for the line that ends a run or chat turn started from outside, else 0. */
  runs: number;
  /** Sub-agent runs this run started itself. */
  sub_runs: number;
  /** Wall time of the run or turn, in milliseconds. */
  wall_ms: number;
  /** The run's own tool calls by tool name (its sub-runs record theirs). */
  tool_calls: Record<string, number>;
}

/** How usage is grouped: by tenant, agent, model or UTC day (`YYYY-MM-DD`). */
export type UsageGroupBy = 'tenant' | 'agent' | 'model' | 'day';

/**
 * Ledger lines added up per group and model (the store does the adding: a query reads sums, not
 * every line). `group` is `''` without a `groupBy`. Tool calls come in lines of their own (no tokens, `model: ''`).
 */
export interface UsageSums {
  group: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  cache_write_5m_tokens: number;
  cache_write_1h_tokens: number;
  reasoning_tokens: number;
  total_tokens: number;
  runs: number;
  sub_runs: number;
  wall_ms: number;
  tool_calls: Record<string, number>;
}

/** Which ledger lines a query reads. */
export interface UsageFilter {
  tenant?: string;
  agent?: string;
  /** From this time on (inclusive). */
  since?: Date;
  /** Before this time (exclusive). */
  until?: Date;
}

/** What a store counts, in one transaction, to admit a run against the start quotas. */
export interface AdmissionCounts {
  /** Workflow ids holding a concurrency slot of the tenant (the asking run's own excluded). */
  running: string[];
  /** Start times (ms) of the tenant's runs in the last minute, oldest first. */
  recentStarts: number[];
  /** Tokens the tenant used since the start of the day (UTC). */
  tokensToday: number;
}

/** The counts of a tenant's runs, and of its runs of the asking agent (for the agent's own quotas). */
export interface AdmissionScopes {
  tenant: AdmissionCounts;
  agent: AdmissionCounts;
}

/** A run asking to start: its slot and its start line are taken only when `decide` answers nothing. */
export interface AdmissionRequest {
  tenant: string;
  agent: string;
  workflowId: string;
  /** The run's start line, recorded when admitted. */
  start: UsageEntry;
  now: number;
}

/**
 * Where the usage ledger lives (in memory, SQLite, PostgreSQL), next to the memory stores.
 * Writes are idempotent by `key`; a write from an older attempt of the same activity than the one
 * stored is ignored (see {@link WriteAttempt}).
 */
export interface UsageStore {
  /** Writes `entry` at its key, replacing what was there (unless a later attempt of the same writer stored it). */
  record(entry: UsageEntry, attempt?: WriteAttempt): Promise<void>;
  /** The lines that match `filter`, oldest first. */
  entries(filter?: UsageFilter): Promise<UsageEntry[]>;
  /** The lines that match `filter`, added up per group (with `groupBy`) and model. */
  sums(filter: UsageFilter, groupBy?: UsageGroupBy): Promise<UsageSums[]>;
  /**
   * Atomically (across every process that shares the store): counts the tenant's running runs,
   * recent starts and tokens today (all its runs, and its runs of the asking agent), asks `decide`, and when it answers `undefined` takes a
   * concurrency slot for `workflowId` and records the start line. A run already admitted (a retry)
   * is admitted again without counting. Answers what `decide` refused with.
   */
  admit<R>(
    request: AdmissionRequest,
    decide: (counts: AdmissionScopes) => R | undefined,
  ): Promise<R | undefined>;
  /** Frees the concurrency slot of `workflowId` (a run that ended, or one found dead). */
  release(workflowId: string): Promise<void>;
  /** Tokens `tenant` used from `since` on (of `agent`'s runs only, when given). */
  tokensSince(tenant: string, since: Date, agent?: string): Promise<number>;
  close?(): Promise<void>;
}
