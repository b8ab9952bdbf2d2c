import type { Client } from '@temporalio/client';
import type { AuthorizationCompletedSignal } from '../common/authorization.ts';
import { authorizationCompletedSignal } from '../common/workflow-definitions.ts';
import { listAgentRuns } from '../visibility/list.ts';
import { isUndefinedSearchAttributeError } from '../visibility/start-with-search-attributes.ts';
import { ConfigurationError } from '../errors.ts';

/** At most this many running runs and sessions of one tenant are woken per grant. */
const MAX_WOKEN = 10_000;

/**
 * Tells every running run and chat session of `tenant` on the task queue that `credentialKey` was
 * granted: a signal each, which the waiting calls on that key take as their cue to run again
 * (others ignore it). Found through visibility (by the `ToolkitTenant` search attribute, else by
 * memo); a run the listing has not caught up with yet finds the token by its check within a minute.
 * Answers the workflow ids signalled.
 */
export async function wakeWaitingRuns(
  client: Client,
  taskQueue: string,
  tenant: string | undefined,
  credentialKey: string,
): Promise<string[]> {
  if (typeof credentialKey !== 'string' || credentialKey === '')
    throw new ConfigurationError('authorizationCompleted needs the credential key that was granted.');
  const runs = await listAgentRuns(client, taskQueue, {
    status: 'running',
    limit: MAX_WOKEN,
    ...(tenant !== undefined ? { tenant } : {}),
  }).catch(async (error: unknown) => {
    if (tenant === undefined || !isUndefinedSearchAttributeError(error)) throw error;
    return listAgentRuns(client, taskQueue, { status: 'running', limit: MAX_WOKEN });
  });
  const signal: AuthorizationCompletedSignal = {
    credential_key: credentialKey,
    ...(tenant !== undefined ? { tenant } : {}),
  };
  const woken: string[] = [];
  await Promise.all(
    runs
      .filter((run) => run.tenant === tenant)
      .map(async (run) => {
        try {
          await client.workflow.getHandle(run.workflowId).signal(authorizationCompletedSignal, signal);
          woken.push(run.workflowId);
        } catch {
          // It ended meanwhile: nothing to wake.
        }
      }),
  );
  return woken;
}
