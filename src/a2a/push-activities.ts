import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type * as Root from '@a2a-js/sdk';
import type { Task } from '@a2a-js/sdk';
import type { A2aPushInput, A2aTaskStateSeen } from '../common/a2a-push.ts';
import type { CredentialStore } from '../credentials/types.ts';
import { importOptional } from '../optional-dependency.ts';
import { isTerminal, STATE_NAMES } from './parts.ts';
import { readPushSecrets } from './push-secrets.ts';
import { taskSourceOf } from './task-source-of.ts';

/** The most time between two looks at a task that has not changed. */
const MAX_WAIT_MS = 2_000;

function seenOf(task: Task): A2aTaskStateSeen {
  const state = task.status?.state;
  return { state: STATE_NAMES[state ?? 0] ?? 'TASK_STATE_UNSPECIFIED', terminal: isTerminal(state) };
}

/** Waits (heartbeating) until the task is in a state other than `after`, and answers it. */
export async function awaitA2aTaskChange(
  input: { taskId: string; after?: string },
  context: Context,
): Promise<A2aTaskStateSeen> {
  const source = taskSourceOf(context.client, input.taskId);
  for (let wait = 250; ; wait = Math.min(wait * 2, MAX_WAIT_MS)) {
    const seen = seenOf(await source.read());
    if (seen.state !== input.after) return seen;
    context.heartbeat();
    await sleep(wait, undefined, { signal: context.cancellationSignal });
  }
}

/**
 * POSTs the task as it is now to the configuration's URL (A2A's JSON of a `StreamResponse` with the
 * task), with the client's token (`X-A2A-Notification-Token`) or authentication (`Authorization`),
 * read from the credential store here, and `Idempotency-Key: <task>:<config>:<state>`. Nothing is
 * sent when the task is still in `after`. A 4xx other than 408 and 429 is not retried.
 */
export async function sendA2aPushNotification(
  input: A2aPushInput & { after?: string },
  context: Context,
  credentialStore: CredentialStore | undefined,
): Promise<A2aTaskStateSeen> {
  const task = await taskSourceOf(context.client, input.taskId).read();
  const seen = seenOf(task);
  if (seen.state === input.after) return seen;
  const sdk = await importOptional<typeof Root>('@a2a-js/sdk', 'A2A push notifications');
  const headers: Record<string, string> = {
    'content-type': 'application/a2a+json',
    'idempotency-key': `${input.taskId}:${input.configId}:${seen.state}`,
  };
  if (input.credentialKey) {
    const secrets = await readPushSecrets(credentialStore, input.credentialKey, input.tenant);
    if (secrets.authentication) {
      headers.authorization = `${secrets.authentication.scheme} ${secrets.authentication.credentials}`;
    } else if (secrets.token) {
      headers['x-a2a-notification-token'] = secrets.token;
    }
  }
  const response = await fetch(input.url, {
    method: 'POST',
    headers,
    body: JSON.stringify(sdk.StreamResponse.toJSON({ payload: { $case: 'task', value: task } })),
    signal: context.cancellationSignal,
  });
  await response.body?.cancel();
  if (!response.ok) {
    const retryable = response.status >= 500 || response.status === 408 || response.status === 429;
    throw ApplicationFailure.create({
      type: 'A2aPushRejected',
      message: `The push notification receiver ${new URL(input.url).origin} answered HTTP ${response.status}.`,
      nonRetryable: !retryable,
    });
  }
  return seen;
}
