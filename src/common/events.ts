/** Event types and shapes of a run (docs/streaming.md). Shared by workflow and client code. */

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
  | 'warning'
  | 'handoff'
  | 'authorization_required'
  | 'authorization_granted'
  | 'authorization_timed_out'
  | 'tool_waiting'
  | 'model_waiting'
  | 'guardrail_tripped'
  | 'memory_recalled'
  | 'memory_written'
  | 'memory_observed'
  | 'working_memory_updated';

/**
 * One event of a run. `seq` counts from 1 within the run. Payload keys: `step_started.iteration`;
 * `tool_*.tool` and `.call_id`; `run_completed.output` (the parsed object in a structured run, with
 * `.text` its JSON as written), `.usage` (the turn's tokens) and `.model`; `run_cancelled.reason`, `.stop_reason` and `.output`;
 * `approval_*.call_id` and `.tool` (`approval_requested.args`, `approval_granted.note`,
 * `approval_rejected.reason`); `text_delta.text` (and `.attempt`); `partial_output.output` (a
 * structured answer parsed so far, and `.attempt`); `context_compacted.before_tokens`,
 * `.after_tokens` and `.messages_summarized`; `warning.level` (`'warning'`) and `.unavailable_mcps`
 * (`[{ server, reason }]`: MCP servers the run goes on without); `handoff.from`, `.to` and
 * `.call_id`; `authorization_required.credential_key`, `.tenant`, `.url` (open it to grant),
 * `.scopes`, `.reason` and `.expires_at` (with `.call_id`, `.tool`); `authorization_granted` and
 * `authorization_timed_out` with `.credential_key`, `.call_id` and `.tool`; `tool_waiting` (a call the
 * provider rate-limited, waiting on a timer) with `.tool`, `.call_id`, `.reason` (`'rate_limit'`),
 * `.retry_after_ms`, `.resume_at` and `.wait` (its count); `model_waiting` (a model step the provider
 * rate-limited, waiting on a timer) with `.reason`, `.retry_after_ms`, `.resume_at` and `.wait`;
 * `guardrail_tripped` (a guardrail ended the run or chat turn) with `.kind` (`input`, `output`,
 * `tool`), `.check` (its name), `.reason` (what it said), and `.tool` and `.phase` for a tool
 * check, `.withdrawn` when text already streamed is taken back; `memory_recalled` (long-term memory put
 * remembered messages into the turn's prompt, or `recall_memory` found them) with `.mode` (`'auto'`,
 * `'tool'`), `.message_ids` (and `.call_id` of the tool's call);
 * `memory_written` (a turn remembered after it answered) with `.message_ids`; `memory_observed`
 * (turns condensed into observations) with `.message_ids`, `.from_seq` and `.to_seq`; `working_memory_updated`
 * (the model changed the user's profile with `update_working_memory`) with `.fields` and `.call_id`. A sub-agent call's
 * `tool_called` / `tool_completed` / `tool_failed` carry `.child_agent` and `.child_run` (the child
 * run's workflow id); a frontend tool call's `tool_called` (a tool the client runs, which waits for
 * its result) carries `.frontend_calls`, the ids of its step's frontend calls; a parent's `events()` also yields its children's events, tagged `.agent`,
 * `.sub_run` and `.depth`. No event ever carries a secret.
 */
export interface AgentEvent {
  seq: number;
  type: AgentEventType;
  message: string;
  payload: Record<string, unknown>;
  timestamp: string;
  /**
   * Where a reader resumes after this event (`events({ after })`, an SSE event's `id:`): set on the
   * events `events()` and `stream()` yield. It is the seq of a run's own event, and `12/3` for
   * event 3 of the sub-agent run called at event 12; cursors increase in the order a reader
   * gets the events. A `text_delta` delivered live, before the batch that records it
   * (docs/streaming.md, "The live channel"), has the seq of the event before it and the cursor
   * `12.40`: the 40 characters of text written after event 12.
   */
  cursor?: string;
}

/**
 * What the `toolkit.waitForEvents` update answers: how far the log has grown, and whether the run has
 * ended. Clients of earlier versions long-polled with it; this one reads by query (see `streamRunEvents`).
 */
export interface EventCursor {
  lastSeq: number;
  finished: boolean;
}

/**
 * A run's events as its result carries them (`events` beside `output` and `metadata`), so that a
 * closed run is read from its close event, without a worker and without replaying it. `first_seq`
 * is the first event carried: a log over {@link CLOSED_EVENTS_BUDGET_CHARS} drops its `text_delta`
 * events (the text is in the step's result and `run_completed.output`), then its oldest events;
 * `last_seq` is the run's last event.
 */
export interface ClosedRunEvents {
  first_seq: number;
  last_seq: number;
  events: AgentEvent[];
}

/** The most characters (as JSON) of events a result carries: far below Temporal's 2 MB payload limit. */
export const CLOSED_EVENTS_BUDGET_CHARS = 256_000;

/**
 * The log a closed run's result carries: all `events` within `budget` characters of JSON; over it,
 * without `text_delta`; still over it, the newest that fit (none when the last one alone does not:
 * the result must stay far below Temporal's payload limit, and readers then ask the run). `firstSeq`: the
 * seq from which `events` are complete (default: the first event's); a trimmed log starts later.
 */
export function closedLog(
  events: readonly AgentEvent[],
  lastSeq: number,
  budget: number,
  firstSeq = events[0]?.seq ?? lastSeq + 1,
): ClosedRunEvents {
  const size = (list: readonly AgentEvent[]) => JSON.stringify(list).length;
  let kept = events;
  if (size(kept) <= budget) return { first_seq: firstSeq, last_seq: lastSeq, events: [...kept] };
  kept = kept.filter((event) => event.type !== 'text_delta');
  if (size(kept) > budget) {
    const tail: AgentEvent[] = [];
    let used = 2;
    for (let i = kept.length - 1; i >= 0; i--) {
      used += JSON.stringify(kept[i]).length + 1;
      if (used > budget) break;
      tail.unshift(kept[i]!);
    }
    kept = tail;
  }
  return { first_seq: kept[0]?.seq ?? lastSeq + 1, last_seq: lastSeq, events: [...kept] };
}

/** The events a workflow's result carries, when it carries them (runs of earlier versions do not). */
export function closedRunEvents(result: unknown): ClosedRunEvents | undefined {
  return asClosedRunEvents((result as { events?: unknown } | null | undefined)?.events);
}

/** `value` when it is a {@link ClosedRunEvents}. */
export function asClosedRunEvents(value: unknown): ClosedRunEvents | undefined {
  const events = value as ClosedRunEvents | null | undefined;
  return events && Array.isArray(events.events) && typeof events.first_seq === 'number' ? events : undefined;
}

/**
 * The `type` of the failure a run that failed ends with: its cause is what failed, its first detail
 * the run's events ({@link ClosedRunEvents}), so that a failed run is read without a worker too.
 */
export const RUN_FAILED_TYPE = 'AgentRunFailed';

/** The events after `afterSeq` from a closed run's log; `undefined` when the log does not reach back that far. */
export function eventsAfter(log: ClosedRunEvents | undefined, afterSeq: number): AgentEvent[] | undefined {
  if (!log || log.first_seq > afterSeq + 1) return undefined;
  return log.events.filter((event) => event.seq > afterSeq);
}

export const EVENTS_QUERY = 'toolkit.events';
export const WAIT_FOR_EVENTS_UPDATE = 'toolkit.waitForEvents';
