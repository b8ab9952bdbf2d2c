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
    },
  );
  setHandler(approveUpdate, (input) => running().approvals.approve(input), {
    validator: (input: ApproveInput) => running().approvals.validateApprove(input),
  });
  setHandler(rejectUpdate, (input) => running().approvals.reject(input), {
    validator: (input: RejectInput) => running().approvals.validateReject(input),
  });
  setHandler(pendingApprovalsQuery, () => current()?.approvals.list() ?? []);
  setHandler(subRunsQuery, () => [...(current()?.subRuns.values() ?? [])]);
  setHandler(textDeltaSignal, (delta) => current()?.loop?.acceptTextDelta(delta));
  setHandler(authorizationCompletedSignal, (grant) => current()?.authorizations.complete(grant));
  setHandler(pendingAuthorizationsQuery, () => current()?.authorizations.list() ?? []);
}
