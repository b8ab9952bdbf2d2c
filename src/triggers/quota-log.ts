import type { AgentClient, AgentRunHandle } from '../client/agent-client.ts';
import { QuotaExceededError } from '../errors.ts';

/** How long a trigger watches a run it started for a quota refusal (refusals come in its first step). */
export const QUOTA_WATCH_MS = 30_000;

/**
 * Logs the refusal of a run a trigger started, if its tenant's quota refuses it: the run then does
 * nothing, and the log line names the quota and when it resets. Watches in the background for at
 * most `watchMs` (the webhook is answered at once), or until the client closes, then lets go of the run.
 */
export function logQuotaRefusal(
  client: AgentClient,
  handle: AgentRunHandle<unknown>,
  log: (line: string) => void,
  prefix: string,
  watchMs: number = QUOTA_WATCH_MS,
): void {
  void client
    .inBackground(watchMs, () => handle.result())
    .then(undefined, (error: unknown) => {
      if (error instanceof QuotaExceededError) log(`${prefix} refused, nothing started: ${error.message}`);
    });
}
