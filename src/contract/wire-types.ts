/**
 * The messages that cross the wire between a client in any language and our workflows, under the
 * names the published JSON Schema (`schemas/toolkit-agent.schema.json`) gives them. Generated from
 * these types by `npm run schemas`, so the schema and the code cannot drift apart.
 * docs/calling-from-any-language.md says how each is used.
 */
import type { AgentEvent, ClosedRunEvents } from '../common/events.ts';
import type { AgentRunInput, AgentRunOutput } from '../common/run.ts';
import type { DeepAgentRunInput } from '../common/deep.ts';
import type {
  ChatSessionInput,
  ChatSessionState,
  ChatTurnOutput,
  SendInput,
  SessionMessageInput,
  SessionStateView,
} from '../common/chat.ts';
import type { ApproveInput, CancelInput, PendingApproval, RejectInput } from '../common/control.ts';
import type { PendingAuthorization } from '../common/authorization.ts';
import type { PollerInput } from '../common/poller.ts';
import type { ToolResultInput } from '../frontend-tools/types.ts';
import type { RunningSubRun } from '../subagents/types.ts';

/** The input of the `agentRun` workflow. */
export type AgentRunWorkflowInput = AgentRunInput;
/** The input of the `deepAgentRun` workflow. */
export type DeepAgentRunWorkflowInput = DeepAgentRunInput;
/** What `agentRun` and `deepAgentRun` return: the result and the run's events. */
export type AgentRunWorkflowResult = AgentRunOutput;
/** The input of the `chatSession` workflow. */
export type ChatSessionWorkflowInput = ChatSessionInput;
/** What a `chatSession` run returns when it ends (idle): its counters. */
export type ChatSessionWorkflowResult = ChatSessionState;
/** The input of the `sessionMessage` workflow (a message into a chat session, started by a schedule). */
export type SessionMessageWorkflowInput = SessionMessageInput;
/** The input of the `agentPoller` workflow. */
export type AgentPollerWorkflowInput = PollerInput;
/** The argument of the `toolkit.send` and `toolkit.deliver` updates and the `toolkit.deliverSignal` signal. */
export type SendUpdateInput = SendInput;
/** What the `toolkit.send` update answers: the turn's result and its events. */
export type SendUpdateResult = ChatTurnOutput;
/** What the `toolkit.deliver` update answers. */
export interface DeliverUpdateResult {
  duplicate: boolean;
}
/** What the `toolkit.sessionState` query answers. */
export type SessionStateQueryResult = SessionStateView;
/** The argument of the `toolkit.cancel` update. */
export type CancelUpdateInput = CancelInput;
/** The argument of the `toolkit.approve` update. */
export type ApproveUpdateInput = ApproveInput;
/** The argument of the `toolkit.reject` update. */
export type RejectUpdateInput = RejectInput;
/** The argument of the `toolkit.toolResult` update: the result of a frontend tool call the run waits on. */
export type ToolResultUpdateInput = ToolResultInput;
/** What the `toolkit.pendingToolCalls` query answers: the ids of the frontend tool calls that wait for their result. */
export type PendingToolCallsQueryResult = string[];
/** What the `toolkit.pendingApprovals` query answers. */
export type PendingApprovalsQueryResult = PendingApproval[];
/** What the `toolkit.pendingAuthorizations` query answers. */
export type PendingAuthorizationsQueryResult = PendingAuthorization[];
/** What the `toolkit.subRuns` query answers: the sub-agent runs in flight, whose events a reader weaves in. */
export type SubRunsQueryResult = RunningSubRun[];
/** What the `toolkit.events` query answers: the events after the seq it is given, in order. */
export type EventsQueryResult = AgentEvent[];
/** One event of a run. */
export type RunEvent = AgentEvent;
/** A closed run's events, as its result carries them. */
export type ClosedRunEventLog = ClosedRunEvents;
