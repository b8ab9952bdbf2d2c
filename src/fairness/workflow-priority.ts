import type { Priority } from '@temporalio/common';
import { workflowInfo } from '@temporalio/workflow';

/**
 * The run's own priority (its tenant's fairness key and weight, its priority key), set explicitly
 * on the activities it schedules. Temporal would inherit it anyway; set here, it is in each
 * `ActivityTaskScheduled` event and in the activity's `Context.info.priority`, where an operator
 * (and a test) can see which tenant a task was dispatched for.
 */
export function runPriorityOption(): { priority?: Priority } {
  const { priority } = workflowInfo();
  if (!priority?.fairnessKey && !priority?.priorityKey) return {};
  return { priority };
}

/**
 * The priority of a call on a rate-limited queue, whose rate Temporal keeps per fairness key: the
 * run's priority key, and the tenant as the fairness key, since a tenant's run reads the tenant's
 * own credential records and so is one account at the provider (runs without a tenant share the
 * shared records: no key). Weight 1, because Temporal scales a key's rate by its weight, and an
 * account's rate is the provider's whatever the tenant's share of the fleet. Set also when the
 * client turned fair scheduling off.
 */
export function accountPriorityOption(tenant: string | undefined): { priority?: Priority } {
  const priorityKey = workflowInfo().priority?.priorityKey;
  const priority: Priority = {
    ...(priorityKey !== undefined ? { priorityKey } : {}),
    ...(tenant ? { fairnessKey: tenant, fairnessWeight: 1 } : {}),
  };
  return Object.keys(priority).length ? { priority } : {};
}
