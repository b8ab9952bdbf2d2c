import {
  ApplicationFailure,
  defineQuery,
  defineSignal,
  defineUpdate,
  setHandler,
} from '@temporalio/workflow';
import {
  APPROVE_UPDATE,
  CANCEL_UPDATE,
  PENDING_APPROVALS_QUERY,
  REJECT_UPDATE,
  TEXT_DELTA_SIGNAL,
  type ApproveInput,
  type CancelInput,
  type PendingApproval,
  type RejectInput,
  type TextDeltaSignal,
} from '../common/control.ts';
import {
  AUTHORIZATION_COMPLETED_SIGNAL,
  PENDING_AUTHORIZATIONS_QUERY,
  type AuthorizationCompletedSignal,
  type PendingAuthorization,
} from '../common/authorization.ts';
import type { RunControl } from './run-control.ts';
import { SUB_RUNS_QUERY, type RunningSubRun } from '../subagents/types.ts';

export const cancelUpdate = defineUpdate<void, [CancelInput]>(CANCEL_UPDATE);
export const approveUpdate = defineUpdate<void, [ApproveInput]>(APPROVE_UPDATE);
export const rejectUpdate = defineUpdate<void, [RejectInput]>(REJECT_UPDATE);
export const pendingApprovalsQuery = defineQuery<PendingApproval[]>(PENDING_APPROVALS_QUERY);
export const subRunsQuery = defineQuery<RunningSubRun[]>(SUB_RUNS_QUERY);
export const textDeltaSignal = defineSignal<[TextDeltaSignal]>(TEXT_DELTA_SIGNAL);
export const authorizationCompletedSignal = defineSignal<[AuthorizationCompletedSignal]>(
  AUTHORIZATION_COMPLETED_SIGNAL,
);
export const pendingAuthorizationsQuery = defineQuery<PendingAuthorization[]>(PENDING_AUTHORIZATIONS_QUERY);

/**
 * Wires the outside controls to whatever run or turn is current: cancel, approve and reject are
 * updates whose validators refuse what cannot apply (so a bad request is its sender's error, never
 * history); pending approvals are a query (reading costs no history); live text arrives as signals.
 * `what` names the unit in messages ("run", "turn").
 */
export function setControlHandlers(current: () => RunControl | undefined, what: 'run' | 'turn'): void {
  const running = (): RunControl => {
    const control = current();
    if (!control || control.finished) {
      throw ApplicationFailure.nonRetryable(
        `No ${what} is running: there is nothing to control.`,
        'NotRunning',
      );
    }
    return control;
  };
  setHandler(
    cancelUpdate,
    ({ reason } = {}) => {
      running().requestStop('cancelled', reason?.trim() || `The ${what} was cancelled.`);
    },
    {
      validator: (input: CancelInput = {}) => {
        const control = running();
        if (control.stopRequest) {
          throw ApplicationFailure.nonRetryable(
            `The ${what} is already stopping (${control.stopRequest.reason}).`,
            'NotRunning',
          );
        }
        if (input.reason !== undefined && typeof input.reason !== 'string') {
          throw ApplicationFailure.nonRetryable('A cancel reason must be a string.', 'InvalidCancel');
        }
      },
      description: `Stops the ${what} ({ reason? }): it ends with stop_reason 'cancelled', keeping what it has.`,
    },
  );
  setHandler(approveUpdate, (input) => running().approvals.approve(input), {
    validator: (input: ApproveInput) => running().approvals.validateApprove(input),
    description: 'Approves a waiting tool call ({ callId, note? }): it runs.',
  });
  setHandler(rejectUpdate, (input) => running().approvals.reject(input), {
    validator: (input: RejectInput) => running().approvals.validateReject(input),
    description: 'Rejects a waiting tool call ({ callId, reason }): the model is told the reason.',
  });
  setHandler(pendingApprovalsQuery, () => current()?.approvals.list() ?? [], {
    description: 'The tool calls waiting for a person to approve or reject them.',
  });
  setHandler(subRunsQuery, () => [...(current()?.subRuns.values() ?? [])], {
    description: 'The sub-agent runs in flight (agent, workflow id, call id, depth).',
  });
  setHandler(textDeltaSignal, (delta) => current()?.loop?.acceptTextDelta(delta), {
    description: 'Live text of a model step, sent by its activity (not for clients).',
  });
  setHandler(authorizationCompletedSignal, (grant) => current()?.authorizations.complete(grant), {
    description: 'A user granted a credential the run waits for (sent by the authorization flow).',
  });
  setHandler(pendingAuthorizationsQuery, () => current()?.authorizations.list() ?? [], {
    description: 'The credentials the run waits for a user to authorize, with the URL to grant each.',
  });
}
