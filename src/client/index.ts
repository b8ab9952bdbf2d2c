export { AgentClient, AgentRunHandle, type StartRunOptions } from './agent-client.ts';
export type { AgentEvent, AgentEventType } from '../common/events.ts';
export type { AgentResult } from '../common/run.ts';
