export type * from './events.ts';
export { EVENTS_QUERY, WAIT_FOR_EVENTS_UPDATE } from './events.ts';
export type * from './messages.ts';
export type * from './run.ts';
export type * from './model-step.ts';
export type * from './opening.ts';
export type * from './control.ts';
export {
  APPROVE_UPDATE,
  CANCEL_UPDATE,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  DEFAULT_TEXT_DELTA_BATCH_MS,
  PENDING_APPROVALS_QUERY,
  REJECT_UPDATE,
  TEXT_DELTA_SIGNAL,
} from './control.ts';
export type * from './authorization.ts';
export {
  AUTHORIZATION_CHECK_EVERY_MS,
  AUTHORIZATION_COMPLETED_SIGNAL,
  DEFAULT_AUTHORIZATION_TIMEOUT_MS,
  PENDING_AUTHORIZATIONS_QUERY,
} from './authorization.ts';
