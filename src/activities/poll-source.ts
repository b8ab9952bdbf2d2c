import type { Context } from '@temporalio/activity';
import type { PollResult, PollSourceName } from '../common/poller.ts';
import { SecretSet } from '../redaction.ts';
import type { ToolContext } from '../tools/connector-base.ts';
import { runWithRefreshOnRejection } from '../tools/refresh-on-rejection.ts';
import { GmailPollSource } from '../triggers/poll-sources/gmail.ts';
import { LinearPollSource } from '../triggers/poll-sources/linear.ts';
import type { RegisteredAgent } from './registered-agent.ts';

export interface PollSourceInput {
  agent: string;
  source: PollSourceName;
  credentialKey: string;
  tenant?: string;
  cursor?: string;
}

/**
 * One poll of a source, inside the activity like any tool call: the credential is read here (an
 * OAuth token refreshed once when the service rejects it), and what comes back is redacted.
 */
export async function pollSource(
  agent: RegisteredAgent,
  input: PollSourceInput,
  context: Context,
): Promise<PollResult> {
  const options = { credentialKey: input.credentialKey };
  const source = input.source === 'gmail' ? new GmailPollSource(options) : new LinearPollSource(options);
  const secrets = new SecretSet();
  const toolContext: ToolContext = {
    agent: agent.name,
    workflowId: context.info.workflowExecution?.workflowId ?? '',
    runId: context.info.workflowExecution?.runId ?? '',
    callId: `poll-${context.info.activityId}`,
    ...(input.tenant !== undefined ? { tenant: input.tenant } : {}),
    credentialStore: agent.credentialStore,
    secrets,
    signal: context.cancellationSignal,
    heartbeat: (details) => context.heartbeat(details),
  };
  const output = await runWithRefreshOnRejection(source, toolContext, { cursor: input.cursor });
  const result = output.metadata as unknown as PollResult;
  return JSON.parse(secrets.redact(JSON.stringify(result))) as PollResult;
}
