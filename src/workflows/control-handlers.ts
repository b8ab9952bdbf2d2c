import { ApplicationFailure, setHandler } from '@temporalio/workflow';
import type { ApproveInput, CancelInput, RejectInput } from '../common/control.ts';
import {
  approveUpdate,
  authorizationCompletedSignal,
  cancelUpdate,
  pendingApprovalsQuery,
  pendingAuthorizationsQuery,
  pendingToolCallsQuery,
  rejectUpdate,
  subRunsQuery,
  textDeltaSignal,
  toolResultUpdate,
} from '../common/workflow-definitions.ts';
import type { RunControl } from './run-control.ts';
import type { ToolResultInput } from '../frontend-tools/types.ts';

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
  setHandler(toolResultUpdate, (input) => running().frontendCalls.answer(input), {
    validator: (input: ToolResultInput) => running().frontendCalls.validate(input),
    description: 'The result of a frontend tool call ({ callId, content, error? }): the model sees it.',
  });
  setHandler(pendingToolCallsQuery, () => current()?.frontendCalls.list() ?? [], {
    description: 'The ids of the frontend tool calls waiting for their result from the client.',
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
