/**
 * The `toolkit-agent/client` entry point.
 *
 * @module toolkit-agent/client
 */
import '../node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
export { AgentClient, AgentRunHandle, type StartRunOptions } from './agent-client.ts';
export type { FairnessOptions } from '../fairness/types.ts';
export type { AgentEvent, AgentEventType } from '../common/events.ts';
export type { AgentResult, SubRunSummary } from '../common/run.ts';
export { AgentChatSession, type ChatSessionOptions, type SendOptions } from './chat-session.ts';
export type { InferOutput, JsonSchema, OutputSchema } from '../output/schema.ts';
export type { ChatTurnResult } from '../common/chat.ts';
export type { TemporalConnectionOptions, TemporalTlsOptions } from '../connection/temporal-options.ts';
export type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
export type { PendingApproval, RunLimits } from '../common/control.ts';
export type { AuthorizationRequest, PendingAuthorization } from '../common/authorization.ts';
export {
  ControlRefusedError,
  GuardrailTripped,
  OutputValidationError,
  QuotaExceededError,
  RunFailedError,
  type OutputValidationIssue,
  type QuotaExceededDetails,
  type QuotaName,
} from '../errors.ts';
export type { Pricing, ModelPrice, UsageReport, UsageTotals } from '../usage/summary.ts';
export type { UsageQuery } from '../usage/query.ts';
export type { UsageGroupBy, UsageStore } from '../usage/types.ts';
export { eventStreamResponse, type EventStreamResponseOptions } from './event-stream-response.ts';
export {
  toUIMessageChunkStream,
  toUIMessageStreamResponse,
  type UIMessageSource,
  type UIMessageStreamOptions,
  type UIMessageStreamResponseOptions,
  type UIStreamChunk,
} from '../ui-stream/ui-message-stream.ts';
export { createChatHandler, type ChatHandlerOptions } from '../ui-stream/chat-handler.ts';
export {
  InProcessLiveChannel,
  inProcessLiveChannel,
  type LiveStepKey,
  type LiveTextChannel,
  type LiveTextMessage,
} from '../live-text/channel.ts';
export { PostgresLiveChannel, type PostgresLiveChannelOptions } from '../live-text/postgres.ts';
export type { AgentRunListing, AgentRunStatus, ListRunsOptions } from '../visibility/list.ts';
export {
  TOOLKIT_AGENT,
  TOOLKIT_TENANT,
  CREATE_SEARCH_ATTRIBUTES_COMMAND,
} from '../visibility/search-attributes.ts';
export type { TelemetryOptions } from '../telemetry/options.ts';
export { telemetryClientInterceptors } from '../telemetry/temporal-interceptors.ts';
