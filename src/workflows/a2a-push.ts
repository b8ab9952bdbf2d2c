import { defineQuery, proxyActivities, setHandler } from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.ts';
import { A2A_PUSH_CONFIG_QUERY, type A2aPushConfig, type A2aPushInput } from '../common/a2a-push.ts';

/** Waiting for the task to change may take days (an approval): long attempts that heartbeat, retried forever. */
const { awaitA2aTaskChange } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 hour',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** A notification: a few short attempts (a receiver that stays down loses that state's notification). */
const { sendA2aPushNotification } = proxyActivities<AgentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 8, initialInterval: '1 second', maximumInterval: '20 seconds' },
});

export const a2aPushConfigQuery = defineQuery<A2aPushConfig>(A2A_PUSH_CONFIG_QUERY);

/**
 * Sends one push configuration's notifications of one A2A task: waits (in an activity) for the task
 * to reach a state other than the last one notified, then notifies it (in another activity, with the
 * key `<task>:<config>:<state>` for receivers that deduplicate). Each state is sent once: what was sent
 * is in this workflow's history, so a worker that dies while waiting resumes waiting for the next.
 * Ends after the task's final state.
 */
export async function a2aPushNotifications(input: A2aPushInput): Promise<void> {
  setHandler(a2aPushConfigQuery, () => ({ configId: input.configId, taskId: input.taskId, url: input.url }));
  let notified: string | undefined;
  for (;;) {
    const after = notified ? { after: notified } : {};
    let seen = await awaitA2aTaskChange({ taskId: input.taskId, ...after });
    try {
      // What was sent is the task as it is at sending, which may be a later state than the one seen.
      seen = await sendA2aPushNotification({ ...input, ...after });
    } catch {
      // The receiver refused it or stayed down: this state goes unnotified; the next one is tried.
    }
    notified = seen.state;
    if (seen.terminal) return;
  }
}
