/**
 * How runs of many tenants share a task queue (docs/tenants.md). Each run carries its
 * `tenant` as Temporal's fairness key, so the server dispatches the tasks of a backlog to tenants
 * in proportion to their weights instead of first come, first served.
 */
export interface FairnessOptions {
  /**
   * A tenant's share of dispatch, relative to the others (Temporal's `fairnessWeight`, 0.001 to
   * 1000). A tenant not named here has `defaultWeight`.
   */
  weights?: Record<string, number>;
  /** The weight of tenants not in `weights`. Default 1 (Temporal's default). */
  defaultWeight?: number;
  /** Leave the fairness key off (runs are then dispatched first come, first served). Default: on. */
  disabled?: boolean;
}

/** Temporal's lowest priority key by default (1 is the highest; Temporal's default is 3). */
export const MAX_PRIORITY_KEY = 5;
