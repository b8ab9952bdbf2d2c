/**
 * toolkit-agent: durable AI agents on Temporal. This entry holds what an application needs: the
 * agents, the client, the worker, the connectors and built-in tools, the stores, skills, models,
 * OAuth helpers, errors and the types of their options. Narrower entries: `toolkit-agent/client`
 * (starting and watching runs, without the worker), `/worker` (also the worker's defaults),
 * `/testing`, `/mcp`, `/triggers`, `/skills/tool_bundles` (also `TOOL_BUNDLES` and
 * `BUILTIN_TOOL_NAMES`), one `/tools/<module>` per connector, and `/tools/connector_base`: the base
 * of every tool and what a connector author needs besides (the HTTP helpers, `SecretSet`,
 * `BuiltinTool`), which this entry does not repeat. `api/exports.md` lists every entry's names.
 *
 * @module toolkit-agent
 */
import './node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
export { Agent, type AgentOptions, type AgentRunOptions } from './agent/agent.ts';
export type { AgentHostingOptions } from './agent/options.ts';
export { DeepAgent, type DeepAgentOptions } from './agent/deep-agent.ts';
export type { DeepAgentResult, Verification } from './common/deep.ts';
export { AgentClient, AgentRunHandle, type StartRunOptions } from './client/agent-client.ts';
export type { FairnessOptions } from './fairness/types.ts';
export { AgentChatSession, type ChatSessionOptions, type SendOptions } from './client/chat-session.ts';
export type { FrontendTool } from './frontend-tools/types.ts';
export type { InferOutput, JsonSchema, OutputSchema } from './output/schema.ts';
export {
  eventStreamResponse,
  type EventSourceable,
  type EventStreamResponseOptions,
} from './client/event-stream-response.ts';
export {
  toUIMessageChunkStream,
  toUIMessageStreamResponse,
  type UIMessageSource,
  type UIMessageStreamOptions,
  type UIMessageStreamResponseOptions,
  type UIStreamChunk,
} from './ui-stream/ui-message-stream.ts';
export { createChatHandler, type ChatHandlerOptions } from './ui-stream/chat-handler.ts';
export type { AgentRunListing, AgentRunStatus, ListRunsOptions } from './visibility/list.ts';
export {
  TOOLKIT_AGENT,
  TOOLKIT_TENANT,
  CREATE_SEARCH_ATTRIBUTES_COMMAND,
} from './visibility/search-attributes.ts';
export {
  registerSearchAttributes,
  type RegisteredSearchAttributes,
} from './visibility/register-search-attributes.ts';
export type { TelemetryOptions } from './telemetry/options.ts';
export type { WorkerLogLevel } from './runtime-log.ts';
export { telemetryClientInterceptors } from './telemetry/temporal-interceptors.ts';
export type { ChatTurnResult, ChatSessionInput } from './common/chat.ts';
export {
  createAgentWorker,
  DEFAULT_SHUTDOWN_GRACE_TIME,
  DEFAULT_LONG_RETRY_AFTER_MS,
  type AgentWorkerOptions,
  type AgentDefinition,
  type RateLimit,
  type RateLimits,
} from './worker.ts';
export { buildAgentWorkflowBundle, type AgentWorkflowBundleOptions } from './workflow-bundle.ts';
export {
  resolveTemporalConnection,
  type TemporalConnectionOptions,
  type TemporalTlsOptions,
  type ResolvedTemporalConnection,
} from './connection/temporal-options.ts';
export { AesGcmPayloadCodec, encryptionDataConverter } from './codec/aes-gcm-codec.ts';
export type { PayloadEncryptionOptions } from './codec/key-ring.ts';
export { createCodecServer, type CodecServerOptions, type CodecRequest } from './codec/codec-server.ts';
export { authorizeUiOrigin, type UiOriginAuthorizationOptions } from './codec/ui-authorization.ts';
export type { AgentEvent, AgentEventType } from './common/events.ts';
export type { ApprovalSettings, PendingApproval, RunLimits } from './common/control.ts';
export type {
  AuthorizationReason,
  AuthorizationRequest,
  AuthorizationTimeoutAction,
  PendingAuthorization,
} from './common/authorization.ts';
export { DEFAULT_AUTHORIZATION_TIMEOUT_MS } from './common/authorization.ts';
export type { AuthorizationOptions } from './authorization/options.ts';
export type { LiveTextOption } from './agent/definition.ts';
export type {
  AgentMemoryOptions,
  MemoryRecallOptions,
  MemoryResourceContext,
} from './agent-memory/options.ts';
export type { LongTermMemoryOption } from './agent-memory/registered.ts';
export { forgetMemory, type ForgetMemoryInput, type ForgottenMemory } from './agent-memory/forget.ts';
export {
  InProcessLiveChannel,
  inProcessLiveChannel,
  type LiveEventMessage,
  type LiveStepKey,
  type LiveTextChannel,
  type LiveTextMessage,
} from './live-text/channel.ts';
export { PostgresLiveChannel, type PostgresLiveChannelOptions } from './live-text/postgres.ts';
export type {
  CacheMissReason,
  CacheNote,
  Message,
  ProviderData,
  ToolCall,
  ToolSchema,
  Usage,
} from './common/messages.ts';
export type { AgentResult, AgentRunInput, StopReason, SubRunSummary } from './common/run.ts';
export type { SubAgentSpec } from './agent/definition.ts';
export { DEFAULT_MAX_SUB_AGENT_DEPTH, type ParentRunInfo } from './subagents/types.ts';
export {
  BaseConnectorTool,
  type ApprovalContext,
  type NeedsApproval,
  type ToolContext,
  type ToolOutput,
} from './tools/connector-base.ts';
export { defineTool, type DefinedToolContext, type ToolDefinition } from './tools/define-tool.ts';
export type { CredentialRecord, CredentialStore, CredentialType } from './credentials/types.ts';
export { InMemoryCredentialStore } from './credentials/in-memory.ts';
export { FileCredentialStore, type FileCredentialStoreOptions } from './credentials/file-store.ts';
export { PostgresCredentialStore, type PostgresCredentialStoreOptions } from './credentials/postgres.ts';
export { listCredentialStatus, type CredentialStatus } from './credentials/status.ts';
export { CustomAPITool, type CustomAPIToolOptions } from './tools/http/custom-api.ts';
export { ToolSearchTool } from './tools/tool-search.ts';
export * from './mcp/index.ts';
export * from './triggers/index.ts';
export { IssueTrackerTool } from './tools/linear/issue-tracker.ts';
export { ChatTool } from './tools/slack/chat.ts';
export { ProjectTrackerTool } from './tools/atlassian/project-tracker.ts';
export { NotesTool } from './tools/notion/notes.ts';
export { WikiTool } from './tools/atlassian/wiki.ts';
export { CalendarTool, type CalendarToolOptions } from './tools/google/calendar.ts';
export { MailTool, type MailToolOptions } from './tools/google/mail.ts';
export { FileDriveTool, type FileDriveToolOptions } from './tools/google/file-drive.ts';
export * from './tools/builtins/index.ts';
export type { MemoryStore, WriteAttempt } from './memory/types.ts';
export { InMemoryMemoryStore } from './memory/in-memory.ts';
export { SqliteMemoryStore } from './memory/sqlite.ts';
export { PostgresMemoryStore, type PostgresMemoryStoreOptions } from './memory/postgres.ts';
export type { ModelAdapter, ModelRequest, ModelResponse } from './models/model-adapter.ts';
export { ScriptedModel, type ScriptedStep } from './models/scripted.ts';
export { aiSdkModel, type LanguageModel, type AiSdkAdapterOptions } from './models/ai-sdk.ts';
export { LocalLlamaModel, type LocalLlamaOptions } from './models/local-llama.ts';
export { findLocalModel } from './models/local-model-file.ts';
export * from './skills/index.ts';
export * from './context/index.ts';
export * from './caching/index.ts';
export * from './evals/index.ts';
export * from './guardrails/index.ts';
export type { OAuthClientConfig, OAuthEndpoints } from './oauth/config.ts';
export {
  InMemoryOAuthStateStore,
  FileOAuthStateStore,
  type OAuthStateStore,
  type OAuthStateEntry,
} from './oauth/state-store.ts';
export {
  OAuthHelper,
  type AuthorizationListener,
  type AuthorizationUrlRequest,
  type OAuthHelperOptions,
  type StoredGrant,
} from './oauth/helper.ts';
export { DriveSuiteOAuthHelper, DRIVE_SUITE_SCOPES, type DriveSuiteService } from './oauth/drive-suite.ts';
export { ChatOAuthHelper, CHAT_BOT_SCOPES, CHAT_USER_SCOPES } from './oauth/chat.ts';
export { loopbackLogin, type LoopbackLoginOptions } from './oauth/loopback-login.ts';
export {
  PostgresOAuthStateStore,
  type PostgresOAuthStateStoreOptions,
} from './oauth/postgres-state-store.ts';
export {
  ToolkitError,
  CredentialError,
  ToolInputError,
  UpstreamError,
  RateLimitError,
  PermissionError,
  NotFoundError,
  ConfigurationError,
  RunFailedError,
  ModelError,
  ControlRefusedError,
  ContextOverflowError,
  OutputValidationError,
  QuotaExceededError,
  GuardrailTripped,
  type QuotaExceededDetails,
  type QuotaName,
  type OutputValidationIssue,
  type AuthorizationNeed,
} from './errors.ts';
export type {
  UsageStore,
  UsageEntry,
  UsageFilter,
  UsageGroupBy,
  UsageSums,
  AdmissionCounts,
  AdmissionRequest,
} from './usage/types.ts';
export { InMemoryUsageStore } from './usage/in-memory.ts';
export { SqliteUsageStore } from './usage/sqlite.ts';
export { PostgresUsageStore, type PostgresUsageStoreOptions } from './usage/postgres.ts';
export type { Quotas, QuotaLimits } from './usage/quotas.ts';
export type { Pricing, ModelPrice, UsageReport, UsageTotals } from './usage/summary.ts';
export type { UsageQuery } from './usage/query.ts';
export { MissingDependencyError } from './optional-dependency.ts';
export type { PostgresPool, PostgresPoolClient } from './postgres/pool.ts';
export { EmbeddedTemporalServer, type EmbeddedServerOptions } from './embedded/dev-server.ts';
export { defineConfig, type ToolkitAgentConfig, type CliOAuthClient } from './cli/config-types.ts';
export {
  AGENT_WORKFLOW_TYPES,
  describeDeployment,
  openOnVersionQuery,
  rampVersion,
  replayHistories,
  setCurrentVersion,
  type DeploymentState,
  type DeploymentVersionState,
  type DeploymentVersionStatus,
  type ReplayFailure,
  type ReplayHistoriesOptions,
  type ReplayReport,
  type WorkerDeployment,
} from './deploy/index.ts';
