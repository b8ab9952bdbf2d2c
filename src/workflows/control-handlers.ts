import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import type { ApproveInput, CancelInput, RejectInput } from '../common/control.ts';
import {
  approveUpdate,
  authorizationCompletedSignal,
  cancelUpdate,
  pendingApprovalsQuery,
  pendingAuthorizationsQuery,
  rejectUpdate,
  subRunsQuery,
  textDeltaSignal,
} from '../common/workflow-definitions.ts';
import type { RunControl } from './run-control.ts';

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
