/** Event types and shapes of a run (spec section 6). Shared by workflow and client code. */

export type AgentEventType =
  | 'run_started'
  | 'step_started'
  | 'tool_called'
  | 'tool_completed'
  | 'tool_failed'
  | 'reasoning_started'
  | 'reasoning_completed'
  | 'run_completed'
  | 'run_cancelled'
  | 'approval_requested'
  | 'approval_granted'
  | 'approval_rejected'
  | 'text_delta'
  | 'partial_output'
  | 'context_compacted'
  | 'handoff';

/**
 * One event of a run. `seq` counts from 1 within the run. Payload keys: `step_started.iteration`;
 * `tool_*.tool` and `.call_id`; `run_completed.output` (the parsed object in a structured run, with
 * `.text` its JSON as written); `run_cancelled.reason`, `.stop_reason` and `.output`;
 * `approval_*.call_id` and `.tool` (`approval_requested.args`, `approval_granted.note`,
 * `approval_rejected.reason`); `text_delta.text` (and `.attempt`); `partial_output.output` (a
 * structured answer parsed so far, and `.attempt`); `context_compacted.before_tokens`,
 * `.after_tokens` and `.messages_summarized`; `handoff.from`, `.to` and `.call_id`. A sub-agent call's
 * `tool_called` / `tool_completed` / `tool_failed` carry `.child_agent` and `.child_run` (the child
 * run's workflow id); a parent's `events()` also yields its children's events, tagged `.agent`,
 * `.sub_run` and `.depth`. No event ever carries a secret.
 */
export interface AgentEvent {
  seq: number;
  type: AgentEventType;
  message: string;
  payload: Record<string, unknown>;
  timestamp: string;
}

/**
 * What the `toolkit.waitForEvents` update answers: how far the log has grown, and whether the run has
 * ended. Clients of earlier versions long-polled with it; this one reads by query (see `streamRunEvents`).
 */
export interface EventCursor {
  lastSeq: number;
  finished: boolean;
}

export const EVENTS_QUERY = 'toolkit.events';
export const WAIT_FOR_EVENTS_UPDATE = 'toolkit.waitForEvents';
