import { randomUUID } from 'node:crypto';
import type { Artifact, Message, StreamResponse, Task, TaskState } from '@a2a-js/sdk';
import type { PendingApproval } from '../common/control.ts';
import type { PendingAuthorization } from '../common/authorization.ts';
import { agentMessage, answerArtifact, dataPart, textPart } from './parts.ts';

/** A task's id and its context's. */
export interface TaskIds {
  taskId: string;
  contextId: string;
}

export function task(ids: TaskIds, state: TaskState, message?: Message): Task {
  return {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state, message, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [],
    metadata: undefined,
  };
}

/** A piece of the answer as the model writes it (`append: false` starts the artifact over). */
export function answerChunk(ids: TaskIds, text: string, append: boolean): StreamResponse {
  return artifactUpdate(ids, { ...answerArtifact(text), metadata: { live: true } }, append, false);
}

export function artifactUpdate(
  ids: TaskIds,
  artifact: Artifact,
  append: boolean,
  lastChunk: boolean,
): StreamResponse {
  return {
    payload: { $case: 'artifactUpdate', value: { ...ids, artifact, append, lastChunk, metadata: undefined } },
  };
}

export function statusUpdate(ids: TaskIds, state: TaskState, message: Message | undefined): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: { ...ids, status: { state, message, timestamp: new Date().toISOString() }, metadata: undefined },
    },
  };
}

export function status(ids: TaskIds, text: string, data?: unknown): Message {
  const parts = data === undefined ? [textPart(text)] : [textPart(text), dataPart(data)];
  return agentMessage({ ...ids, messageId: randomUUID() }, parts);
}

/** What the run waits for, and how to answer it: a message with `approve`/`reject` (or a data part). */
export function inputRequest(
  ids: TaskIds,
  approvals: PendingApproval[],
  authorizations: PendingAuthorization[],
): Message {
  const lines = [
    ...approvals.map(
      (call) =>
        `Tool call ${call.call_id} (${call.tool} ${JSON.stringify(call.args)}) waits for approval: ` +
        'answer "approve" or "reject: <reason>".',
    ),
    ...authorizations.map(
      (wait) =>
        `${wait.tool} needs authorization of "${wait.credential_key}": open ${wait.url}; ` +
        'the task goes on by itself once it is granted (answer "cancel" to stop it).',
    ),
  ];
  return status(ids, lines.join('\n'), {
    pending_approvals: approvals,
    pending_authorizations: authorizations,
  });
}

export function failure(ids: TaskIds, error: unknown): Message {
  return status(ids, `The run failed: ${error instanceof Error ? error.message : String(error)}`);
}
