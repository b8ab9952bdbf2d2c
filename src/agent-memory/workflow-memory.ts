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
import type { RememberTurnInput } from './remember-turn.ts';

/**
 * The memory write of a turn: retried for minutes (a store that is down for a while), each attempt
 * short (10 s), so a worker that dies in one is replaced quickly. Its ids make every attempt write the same.
 */
const memoryActivities = proxyActivities<AgentActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 20, initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** Says what memory recalled into a turn's prompt (`memory_recalled`), when it recalled anything. */
export function emitRecalled(emit: Emit, memory: ResolvedRun['memory']): void {
  if (!memory?.recalled.length) return;
  emit('memory_recalled', `Recalled ${memory.recalled.length} remembered message(s) into the prompt`, {
    mode: 'auto',
    message_ids: memory.recalled,
  });
}

/** Says that `update_working_memory` changed the user's profile (`working_memory_updated`), naming the fields. */
export function emitWorkingMemoryChange(emit: Emit, call: ToolCall, outcome: ToolOutcome): void {
  const fields = outcome.metadata?.working_memory_updated;
  if (call.name !== 'update_working_memory' || !Array.isArray(fields) || fields.length === 0) return;
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
    const cause = error instanceof ActivityFailure ? error.cause : error;
    const reason =
      cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause);
    emit('warning', `The turn was not remembered: ${reason}`, { level: 'warning', memory_error: reason });
  }
}
