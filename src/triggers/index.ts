/**
 * Agents the world can wake (`toolkit-agent/triggers`): webhook triggers (Slack, Linear, GitHub,
 * Standard Webhooks, or your own check), each event handled once, and agent schedules on Temporal
 * Schedules.
 *
 * @module toolkit-agent/triggers
 */
export { createTriggerHandler, type TriggerHandler, type TriggerHandlerOptions } from './handler.ts';
export { toNodeListener } from './node-listener.ts';
export { defaultPrompt } from './prompt.ts';
export {
  AgentSchedules,
  type AgentScheduleInfo,
  type AgentScheduleOptions,
  type ScheduleOverlap,
} from './schedules.ts';
export { AgentPollers, type AgentPollerInfo, type AgentPollerOptions } from './pollers.ts';
export type { PolledItem, PollSourceName } from '../common/poller.ts';
export type { Trigger, TriggerEvent, TriggerSource, VerifiedDelivery } from './types.ts';
export { TriggerRejection, verifyDelivery } from './verify.ts';
