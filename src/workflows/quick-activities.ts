import { proxyActivities } from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.ts';

/** Quick store operations: setting up a turn, recording results the workflow decided on. */
export const quickActivities = proxyActivities<AgentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 5 },
});
