import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  proxyActivities,
} from '@temporalio/workflow';
import type { AgentActivities } from '../activities/index.ts';
import type { ToolCall } from '../common/messages.ts';
import type { ResolvedRun, ToolOutcome } from '../common/run.ts';
import type { Emit } from '../workflows/event-log.ts';
import type { ChatSessionState } from '../common/chat.ts';
import type { ObserveTurnsInput } from './observe-turns.ts';
import type { RememberTurnInput } from './remember-turn.ts';

/**
 * The memory write of a turn: retried for minutes (a store that is down for a while), each attempt
 * short (10 s), so a worker that dies in one is replaced quickly. Its ids make every attempt write the same.
 */
const memoryActivities = proxyActivities<AgentActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 20, initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * Condensing turns into observations: a model call, so the model step's patience (2 minutes an
 * attempt); its id makes every attempt replace what the one before stored.
 */
const observeActivities = proxyActivities<AgentActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 5, initialInterval: '5 seconds', maximumInterval: '1 minute' },
});

/** An answered chat turn, for its memory. */
export interface AnsweredSessionTurn {
  agent: string;
  tenant?: string;
  sessionId: string;
  turnId: string;
  /** The turn's positions in the stored conversation. */
  fromSeq: number;
  toSeq: number;
  memory: NonNullable<ResolvedRun['memory']>;
}

/**
 * A chat turn's memory, off the answer's path: the turn is remembered, then, every
 * `observeEveryTurns` turns, the turns since the last observations are condensed into new ones.
 * `state.observedSeq` moves at once, so the next turns never condense the same turns again.
 */
export async function rememberSessionTurn(
  state: ChatSessionState,
  turn: AnsweredSessionTurn,
  emit: Emit,
): Promise<void> {
  const at = Date.now();
  const every = turn.memory.observeEveryTurns;
  const observe = every && state.turns % every === 0 ? { fromSeq: state.observedSeq ?? 1 } : undefined;
  if (observe) state.observedSeq = turn.toSeq;
  const { agent, sessionId: conversationId, memory } = turn;
  await rememberAnsweredTurn(
    {
      agent,
      ...(turn.tenant === undefined ? {} : { tenant: turn.tenant }),
      conversationId,
      resource: memory.resource,
      fromSeq: turn.fromSeq,
      toSeq: turn.toSeq,
      turnKey: `${conversationId}/${turn.turnId}`,
      at,
    },
    emit,
  );
  if (observe)
    await observeAnsweredTurns(
      {
        agent,
        ...(turn.tenant === undefined ? {} : { tenant: turn.tenant }),
        conversationId,
        resource: memory.resource,
        fromSeq: observe.fromSeq,
        toSeq: turn.toSeq,
        at,
      },
      emit,
    );
}

/** Condenses turns into observations (`memory_observed`); a failure is a `warning` event, as a write's. */
async function observeAnsweredTurns(input: ObserveTurnsInput, emit: Emit): Promise<void> {
  try {
    const ids = await CancellationScope.nonCancellable(() => observeActivities.observeTurns(input));
    if (ids.length)
      emit('memory_observed', `Condensed turns into observations`, {
        message_ids: ids,
        from_seq: input.fromSeq,
        to_seq: input.toSeq,
      });
  } catch (error) {
    emit('warning', `The turns were not condensed into observations: ${reasonOf(error)}`, {
      level: 'warning',
      memory_error: reasonOf(error),
    });
  }
}

/** Says what memory recalled into a turn's prompt (`memory_recalled`), when it recalled anything. */
export function emitRecalled(emit: Emit, memory: ResolvedRun['memory']): void {
  if (!memory?.recalled.length) return;
  emit('memory_recalled', `Recalled ${memory.recalled.length} remembered message(s) into the prompt`, {
    mode: 'auto',
    message_ids: memory.recalled,
  });
}

/**
 * What a memory tool's call did, as an event: `recall_memory` found messages (`memory_recalled`,
 * mode `'tool'`), `update_working_memory` changed fields of the profile (`working_memory_updated`).
 */
export function emitMemoryToolEvent(emit: Emit, call: ToolCall, outcome: ToolOutcome): void {
  const recalled = outcome.metadata?.memory_recalled;
  if (call.name === 'recall_memory' && Array.isArray(recalled) && recalled.length > 0)
    emit('memory_recalled', `Recalled ${recalled.length} remembered message(s) with recall_memory`, {
      mode: 'tool',
      message_ids: recalled,
      call_id: call.id,
    });
  const fields = outcome.metadata?.working_memory_updated;
  if (call.name === 'update_working_memory' && Array.isArray(fields) && fields.length > 0)
    emit('working_memory_updated', `Working memory updated: ${fields.join(', ')}`, {
      call_id: call.id,
      fields,
    });
}

/**
 * Remembers an answered turn in its resource's long-term memory, then says so (`memory_written`).
 * Not cancellable: a turn that answered is remembered even if its run is cancelled meanwhile. A write
 * that fails after its retries is a `warning` event: the turn's answer stands.
 */
export async function rememberAnsweredTurn(input: RememberTurnInput, emit: Emit): Promise<void> {
  try {
    const ids = await CancellationScope.nonCancellable(() => memoryActivities.rememberTurn(input));
    emit('memory_written', `Remembered ${ids.length} message(s) of the turn`, { message_ids: ids });
  } catch (error) {
    const reason = reasonOf(error);
    emit('warning', `The turn was not remembered: ${reason}`, { level: 'warning', memory_error: reason });
  }
}

/** What an activity that failed for good said. */
function reasonOf(error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
}
