export { AgentClient, AgentRunHandle, type StartRunOptions } from './agent-client.ts';
export type { AgentEvent, AgentEventType } from '../common/events.ts';
export type { AgentResult } from '../common/run.ts';
export { AgentChatSession, type ChatSessionOptions } from './chat-session.ts';
export type { ChatTurnResult } from '../common/chat.ts';
export type { TemporalConnectionOptions, TemporalTlsOptions } from '../connection/temporal-options.ts';
export type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
