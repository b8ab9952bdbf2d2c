import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import {
  DELIVER_SIGNAL,
  DELIVER_UPDATE,
  SEND_UPDATE,
  type ChatTurnOutput,
  type SendInput,
} from '../common/chat.ts';
import { eventsAfter, type AgentEvent } from '../common/events.ts';
import { eventsQuery } from '../common/workflow-definitions.ts';
import { ConfigurationError } from '../errors.ts';
import { childEventsOf, withChildEvents } from '../subagents/child-events.ts';
import { decodePayload } from './run-input.ts';

/** One turn of a chat session as its history tells it. */
export interface SessionTurn {
  /** From 1, in the order the session took them. */
  turn: number;
  turnId: string;
  prompt: string;
  /**
   * The turn's events, its sub-agent runs' woven in after the call that started each (tagged
   * `{ agent, sub_run, depth }`, as `events()` gives them).
   */
  events: AgentEvent[];
  /** The turn's answer (absent when it failed). */
  output?: unknown;
  /** Why the turn failed, when it did. */
  error?: string;
}

type History = temporal.api.history.v1.IHistory;

/**
 * The turns of a chat session, read from the histories of its chain of runs (it continues as new):
 * from the first run of the chain to the current one. Each `send` is an update whose answer
 * carries the turn's result and events, so a session that ended or whose worker is gone is read
 * without a worker; a turn handed over by `deliver` (whose answer does not carry them) or whose
 * answer kept only its newest events is read from the session's events query, which a worker
 * answers. A session that resumed after it ended idle starts a new chain: its turns before that are
 * not among these. Refused while a turn runs.
 */
export async function sessionTurns(workflow: WorkflowHandle, latest?: History): Promise<SessionTurn[]> {
  const client = workflow.client;
  const current = latest ?? (await workflow.fetchHistory());
  const firstRun = current.events?.[0]?.workflowExecutionStartedEventAttributes?.firstExecutionRunId;
  const turns: SessionTurn[] = [];
  /** Turns whose events are asked of the session (a failed turn's, if it can be asked). */
  const pending = new Map<string, { turn: SessionTurn; run: WorkflowHandle; failed?: boolean }>();
  const seen = new Set<string>();
  /** The last event seq of each turn whose answer carried its events, by turn. */
  const lastSeqs = new Map<number, number>();
  let runId = firstRun ?? undefined;
  for (;;) {
    const run = client.getHandle(workflow.workflowId, runId, { followRuns: false });
    const history = runId === undefined ? current : await run.fetchHistory();
    const waiting = new Map<string, SessionTurn>();
    const take = async (payload: temporal.api.common.v1.IPayload | undefined, updateId?: string) => {
      if (!payload) return;
      const send = await decodePayload<SendInput>(run, payload);
      if (seen.has(send.turnId)) return; // a message delivered again: the session ran it once
      seen.add(send.turnId);
      const turn: SessionTurn = {
        turn: turns.length + 1,
        turnId: send.turnId,
        prompt: send.prompt,
        events: [],
      };
      turns.push(turn);
      if (updateId !== undefined) waiting.set(updateId, turn);
      else pending.set(turn.turnId, { turn, run });
    };
    let next: string | undefined;
    for (const event of history.events ?? []) {
      const accepted = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
      if (accepted?.input?.name === SEND_UPDATE) {
        await take(accepted.input.args?.payloads?.[0], accepted.meta?.updateId ?? '');
      }
      if (accepted?.input?.name === DELIVER_UPDATE) await take(accepted.input.args?.payloads?.[0]);
      const signaled = event.workflowExecutionSignaledEventAttributes;
      if (signaled?.signalName === DELIVER_SIGNAL) await take(signaled.input?.payloads?.[0]);
      const completed = event.workflowExecutionUpdateCompletedEventAttributes;
      const turn = completed && waiting.get(completed.meta?.updateId ?? '');
      if (completed && turn) {
        waiting.delete(completed.meta?.updateId ?? '');
        const [answer] = completed.outcome?.success?.payloads ?? [];
        if (answer) {
          const output = await decodePayload<ChatTurnOutput>(run, answer);
          turn.output = output.output;
          const log = output.events;
          const events = eventsAfter(log, (log?.first_seq ?? 1) - 1);
          // Turns run one at a time: a whole turn's events start right after the turn before's.
          const before = lastSeqs.get(turn.turn - 1);
          if (log) lastSeqs.set(turn.turn, log.last_seq);
          if (events?.length && (before === undefined || log!.first_seq <= before + 1)) turn.events = events;
          else pending.set(turn.turnId, { turn, run });
        } else {
          turn.error = completed.outcome?.failure?.message ?? 'the turn failed';
          pending.set(turn.turnId, { turn, run, failed: true });
        }
      }
      next = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? next;
    }
    if (waiting.size) {
      throw new ConfigurationError(
        `A turn of the chat session ${workflow.workflowId} is running: record the session once it has answered.`,
      );
    }
    if (!next) break;
    runId = next;
  }
  for (const { turn, run, failed } of pending.values()) {
    const queried = queriedEvents(run, turn);
    turn.events = failed ? await queried.catch(() => []) : await queried;
  }
  for (const turn of turns) turn.events = await withChildren(workflow, turn.events);
  for (const turn of turns) {
    if (turn.output !== undefined || turn.error !== undefined) continue;
    const end = turn.events.find((e) => e.type === 'run_completed' && e.payload.sub_run === undefined);
    turn.output = end?.payload.output;
  }
  return turns;
}

/** A turn's events from the run that took it, by the events query (a worker answers it). */
async function queriedEvents(run: WorkflowHandle, turn: SessionTurn): Promise<AgentEvent[]> {
  try {
    const events = await run.query(eventsQuery, 0);
    return events.filter((event) => event.payload.turn_id === turn.turnId);
  } catch (error) {
    throw new ConfigurationError(
      `Turn ${turn.turn} of the chat session ${run.workflowId} was delivered (or its answer kept only its newest events): its events are read from the session, which needs a worker serving it (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
}

/** A turn's events with its sub-agent runs' events woven in, read from the child workflows. */
async function withChildren(workflow: WorkflowHandle, own: AgentEvent[]): Promise<AgentEvent[]> {
  async function* read(afterSeq: number): AsyncGenerator<AgentEvent> {
    for (const event of own) if (event.seq > afterSeq) yield event;
  }
  const events: AgentEvent[] = [];
  for await (const event of withChildEvents(read, childEventsOf(workflow))) events.push(event);
  return events;
}
