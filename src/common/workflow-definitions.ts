/**
 * The updates, queries and signals of the agent workflows, defined once: the workflows set their
 * handlers on these objects and clients send them, so the name and the payload types of each
 * message are the same on both sides. This file has no side effects and pulls in no workflow code:
 * client code imports it (and the workflow functions as types only, for typed starts).
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import {
  AUTHORIZATION_COMPLETED_SIGNAL,
  PENDING_AUTHORIZATIONS_QUERY,
  type AuthorizationCompletedSignal,
  type PendingAuthorization,
} from './authorization.ts';
import {
  DELIVER_SIGNAL,
  DELIVER_UPDATE,
  SEND_UPDATE,
  SESSION_STATE_QUERY,
  type ChatTurnOutput,
  type SendInput,
  type SessionStateView,
} from './chat.ts';
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
} from './control.ts';
import { EVENTS_QUERY, WAIT_FOR_EVENTS_UPDATE, type AgentEvent, type EventCursor } from './events.ts';
import { POLLER_STATE_QUERY, type PollerState } from './poller.ts';
import {
  PENDING_TOOL_CALLS_QUERY,
  TOOL_RESULT_UPDATE,
  type ToolResultInput,
} from '../frontend-tools/types.ts';
import { SUB_RUNS_QUERY, type RunningSubRun } from '../subagents/types.ts';

// A run or a turn: events, controls, approvals, authorization, live text.
/** The events after a seq (reading costs no history). */
export const eventsQuery = defineQuery<AgentEvent[], [number]>(EVENTS_QUERY);
/** The long-poll for events after a seq, kept for clients of earlier versions and the histories they made. */
export const waitForEventsUpdate = defineUpdate<EventCursor, [number]>(WAIT_FOR_EVENTS_UPDATE);
export const cancelUpdate = defineUpdate<void, [CancelInput]>(CANCEL_UPDATE);
export const approveUpdate = defineUpdate<void, [ApproveInput]>(APPROVE_UPDATE);
export const rejectUpdate = defineUpdate<void, [RejectInput]>(REJECT_UPDATE);
/** The result of a frontend tool call the run waits on, sent by the client that ran it. */
export const toolResultUpdate = defineUpdate<void, [ToolResultInput]>(TOOL_RESULT_UPDATE);
/** The ids of the frontend tool calls that wait for their result. */
export const pendingToolCallsQuery = defineQuery<string[]>(PENDING_TOOL_CALLS_QUERY);
export const pendingApprovalsQuery = defineQuery<PendingApproval[]>(PENDING_APPROVALS_QUERY);
export const pendingAuthorizationsQuery = defineQuery<PendingAuthorization[]>(PENDING_AUTHORIZATIONS_QUERY);
export const authorizationCompletedSignal = defineSignal<[AuthorizationCompletedSignal]>(
  AUTHORIZATION_COMPLETED_SIGNAL,
);
export const textDeltaSignal = defineSignal<[TextDeltaSignal]>(TEXT_DELTA_SIGNAL);
export const subRunsQuery = defineQuery<RunningSubRun[]>(SUB_RUNS_QUERY);

// A chat session.
/** One turn: answers when the turn is done. */
export const sendUpdate = defineUpdate<ChatTurnOutput, [SendInput]>(SEND_UPDATE);
/** A message from the outside world, exactly once by its id: answers once the session took it. */
export const deliverUpdate = defineUpdate<{ duplicate: boolean }, [SendInput]>(DELIVER_UPDATE);
/** A message from another workflow (a poller), which cannot send updates. */
export const deliverSignal = defineSignal<[SendInput]>(DELIVER_SIGNAL);
export const sessionStateQuery = defineQuery<SessionStateView>(SESSION_STATE_QUERY);

// A poller.
export const pollerStateQuery = defineQuery<PollerState>(POLLER_STATE_QUERY);
