import { createHash } from 'node:crypto';
import type { Priority } from '@temporalio/common';
import { ConfigurationError } from '../errors.ts';
import { MAX_PRIORITY_KEY, type FairnessOptions } from './types.ts';

/** Temporal's limit on a fairness key, in bytes. */
const MAX_FAIRNESS_KEY_BYTES = 64;
const MIN_WEIGHT = 0.001;
const MAX_WEIGHT = 1000;

/**
 * The `priority` a run's workflow is started with: its tenant as the fairness key (with the
 * tenant's weight) and its priority key. Activities and child workflows (sub-agents, a poller's
 * runs) inherit it from the workflow. Undefined when there is nothing to set.
 * See https://docs.temporal.io/develop/task-queue-priority-fairness.
 */
export function runPriority(
  tenant: string | undefined,
  fairness: FairnessOptions | undefined,
  priority: number | undefined,
): Priority | undefined {
  const result: Priority = {};
  if (priority !== undefined) result.priorityKey = checkedPriority(priority);
  if (tenant !== undefined && tenant !== '' && !fairness?.disabled) {
    result.fairnessKey = fairnessKey(tenant);
    const weight = fairness?.weights?.[tenant] ?? fairness?.defaultWeight;
    if (weight !== undefined) result.fairnessWeight = weight;
  }
  return Object.keys(result).length ? result : undefined;
}

/** Checks `fairness` options once, where they are given: a bad weight names the tenant. */
export function checkFairness(fairness: FairnessOptions | undefined): FairnessOptions | undefined {
  if (!fairness) return undefined;
  for (const [tenant, weight] of Object.entries(fairness.weights ?? {}))
    checkWeight(weight, `tenant "${tenant}"`);
  if (fairness.defaultWeight !== undefined) checkWeight(fairness.defaultWeight, 'defaultWeight');
  return fairness;
}

function checkWeight(weight: unknown, what: string): void {
  if (typeof weight !== 'number' || !(weight >= MIN_WEIGHT && weight <= MAX_WEIGHT)) {
    throw new ConfigurationError(
      `fairness weight of ${what} must be a number from ${MIN_WEIGHT} to ${MAX_WEIGHT} (got ${String(weight)}).`,
    );
  }
}

function checkedPriority(priority: unknown): number {
  if (
    typeof priority !== 'number' ||
    !Number.isInteger(priority) ||
    priority < 1 ||
    priority > MAX_PRIORITY_KEY
  ) {
    throw new ConfigurationError(
      `priority must be an integer from 1 (first) to ${MAX_PRIORITY_KEY} (last); got ${String(priority)}. Runs without one have 3.`,
    );
  }
  return priority;
}

/** The tenant itself, or for a tenant id over Temporal's 64 bytes a stable digest of it. */
function fairnessKey(tenant: string): string {
  if (Buffer.byteLength(tenant) <= MAX_FAIRNESS_KEY_BYTES) return tenant;
  return `sha256:${createHash('sha256').update(tenant).digest('hex').slice(0, 48)}`;
}
