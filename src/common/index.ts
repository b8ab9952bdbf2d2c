export type * from './events.ts';
export { EVENTS_QUERY, WAIT_FOR_EVENTS_UPDATE } from './events.ts';
export type * from './messages.ts';
export type * from './run.ts';
