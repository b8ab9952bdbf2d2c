import { CredentialError } from '../errors.ts';
import { canRefresh, refreshCredential } from '../oauth/refresh.ts';
import { secretValuesOf } from '../credentials/types.ts';
import { inToolCallScope } from './call-scope.ts';
import type { BaseConnectorTool, ToolContext, ToolOutput } from './connector-base.ts';

/**
 * Runs a tool call; when the service rejects an OAuth token that has a refresh token (HTTP 401, a
 * `CredentialError` with `rejected`), refreshes it once and repeats the call with the new token.
 * A second rejection stays a `CredentialError`. The call is repeated only when the 401 proves it
 * did nothing: not when an earlier request of the same call was a write that may have taken effect.
 * Applies to every tool (built-in connectors and custom ones) unless it sets `refreshOnRejection`
 * to false.
 */
export async function runWithRefreshOnRejection(
  tool: BaseConnectorTool,
  context: ToolContext,
  args: Record<string, unknown>,
): Promise<ToolOutput> {
  const first = await inToolCallScope(() => tool.run(context, args));
  if (first.result.status === 'fulfilled') return first.result.value;
  const error: unknown = first.result.reason;
  if (!(error instanceof CredentialError) || !error.rejected || !tool.refreshOnRejection) throw error;
  const refreshable = first.scope.credentials.filter(({ record }) => canRefresh(record));
  if (refreshable.length === 0) {
    // An OAuth token the service refuses and nothing can refresh: only a new grant helps.
    const oauth = first.scope.credentials.find(({ record }) => record.type === 'oauth2');
    if (!oauth || error.authorization) throw error;
    throw new CredentialError(error.message, {
      cause: error,
      rejected: true,
      authorization: { credentialKey: oauth.key, reason: 'needs_reauth' },
    });
  }
  if (first.scope.writesSent > 0) {
    throw new CredentialError(
      `${error.message}\nThe token was not refreshed and the call not repeated: an earlier write of ` +
        'this call may already have taken effect. Run it again to retry with a refreshed token.',
      { cause: error, rejected: true },
    );
  }
  for (const { store, key, tenant, record } of refreshable) {
    const refreshed = await refreshCredential(store, key, tenant, Date.now, { rejectedToken: record.token });
    for (const value of secretValuesOf(refreshed)) context.secrets.add(value);
  }
  const second = await inToolCallScope(() => tool.run(context, args));
  if (second.result.status === 'fulfilled') return second.result.value;
  const again: unknown = second.result.reason;
  if (again instanceof CredentialError && again.rejected) {
    throw new CredentialError(
      `${again.message}\nIt was rejected again right after a refresh: authorize again.`,
      {
        cause: again,
        rejected: true,
        authorization: again.authorization ?? { credentialKey: refreshable[0]!.key, reason: 'needs_reauth' },
      },
    );
  }
  throw again;
}
