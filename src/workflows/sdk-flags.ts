import { SdkFlags } from '@temporalio/workflow/lib/flags.js';
import { getActivator } from '@temporalio/workflow/lib/global-attributes.js';

/**
 * Writes the SDK's behaviour flags to the run's first workflow task, working around a bug of
 * Temporal's TypeScript SDK (1.24) that the fault suite found. A flag that is on by default is
 * switched on and written to history by the first workflow task that checks it; but when the first
 * check happens in a query, or in the validator of an update that is then rejected, no kept workflow
 * task carries it: the worker goes on with the flag on, while a worker that later replays the run
 * (after a restart, or to answer a query) reads it as off. The OpenTelemetry interceptors check one
 * such flag before instrumenting update handlers and timers, so the replay orders the update's
 * completion differently and fails with a nondeterminism error — the run could never be rebuilt.
 * Checking every default flag at the start of a run writes them where every replay reads them.
 * Histories recorded before this replay as they did: the check is a no-op while replaying.
 */
export function recordSdkFlags(): void {
  const activator = getActivator();
  for (const flag of Object.values(SdkFlags)) if (flag.default) activator.hasFlag(flag);
}
