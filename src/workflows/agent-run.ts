import { allHandlersFinished, CancellationScope, condition, workflowInfo } from '@temporalio/workflow';
import type { AgentResult, AgentRunInput, AgentRunOutput } from '../common/run.ts';
import { setControlHandlers } from './control-handlers.ts';
import { EventLog, type Emit } from './event-log.ts';
import { rememberAnsweredTurn } from '../agent-memory/workflow-memory.ts';
import { failedWithEvents } from './failed-run.ts';
import { refusedRun } from './refused-run.ts';
import { RunControl } from './run-control.ts';
import { runTurn } from './turn.ts';
import { recordSdkFlags } from './sdk-flags.ts';
import { checkWorkflowInput } from '../contract/check-input.ts';

/**
 * One agent run (docs/architecture.md): a single turn over a conversation of its own, with its events
 * readable while it runs. The conversation lives in the memory store; history holds only small deltas.
 * Its result carries its events, so a closed run's events need no worker to read.
 * It can be cancelled, bounded and asked for approvals from outside (docs/control.md).
 */
export async function agentRun(input: AgentRunInput): Promise<AgentRunOutput> {
  recordSdkFlags();
  checkWorkflowInput('agentRun', input);
  const events = new EventLog();
  const control = new RunControl();
  setControlHandlers(() => control, 'run');
  const { workflowId } = workflowInfo();
  // The first event names the run's workflow: a reader of the stream alone (`run --json`) can follow it.
  events.emit('run_started', `Run started: agent "${input.agent}"`, {
    agent: input.agent,
    workflow_id: workflowId,
  });
  let result: AgentResult<unknown>;
  try {
    const conversationId = input.conversationId ?? workflowId;
    const { messageCount, memory, ...answered } = await runTurn(input, conversationId, events, {
      control,
      // A sub-agent run counts in its parent's run: only runs started from outside take a slot.
      ...(input.parent ? {} : { admit: { release: true } }),
    });
    result = answered;
    if (memory && answered.metadata.stop_reason !== 'guardrail') {
      const emit: Emit = (type, message, payload) => events.emit(type, message, payload);
      await rememberAnsweredTurn(
        {
          agent: input.agent,
          ...(input.tenant === undefined ? {} : { tenant: input.tenant }),
          conversationId,
          resource: memory.resource,
          fromSeq: 0,
          toSeq: messageCount,
          turnKey: workflowId,
          at: Date.now(),
        },
        emit,
      );
    }
  } catch (error) {
    const refused = refusedRun(error, input, events);
    // A failed run's events travel in its failure, as a completed run's travel in its result.
    if (!refused) throw failedWithEvents(error, events);
    result = refused;
  }
  control.finish();
  events.finish();
  // Not cancellable: a run whose workflow was cancelled (its parent stopped) still returns its result.
  // Asked first: a wait costs a scope and promises, each with a recorded stack, in the common case of none.
  if (!allHandlersFinished()) await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  // The events travel in the result: a closed run is read without a worker (no history per event).
  return { ...result, events: events.closed() };
}
