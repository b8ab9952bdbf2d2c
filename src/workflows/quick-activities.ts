import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.ts';
import type { RunTimeouts } from '../common/run.ts';

/**
 * Setting up a turn (`resolveRun`, `loadSession`), before the agent's own timeouts are known: short
 * attempts, so a worker that dies in one is replaced in seconds, and enough of them that a few
 * crashes in a row do not fail the run.
 */
export const quickActivities = proxyActivities<AgentActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 10, initialInterval: '200 milliseconds', maximumInterval: '5 seconds' },
});

/** Store writes the workflow decided on, with the agent's `storeStartToCloseMs` and `storeMaxAttempts`. */
export function storeActivities(timeouts: RunTimeouts): ReturnType<typeof proxyActivities<AgentActivities>> {
  return proxyActivities<AgentActivities>({
    // Plans from workers older than these settings lack them: the defaults then.
    startToCloseTimeout: timeouts.storeStartToCloseMs ?? 10_000,
    retry: {
      maximumAttempts: timeouts.storeMaxAttempts ?? 10,
      initialInterval: '200 milliseconds',
      maximumInterval: '5 seconds',
    },
  });
}
