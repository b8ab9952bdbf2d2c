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
