import type { Client } from '@temporalio/client';
import { AgentRunHandle } from '../client/run-handle.ts';
import type { AgentEvent } from '../common/events.ts';

/** How many runs back a turn is looked for: a session continues as new after many turns each time. */
const EARLIER_RUNS = 20;

/**
 * The events of a chat turn that ran before its session continued as new: each earlier run (from the
 * one the current run continued) is asked for its events (a closed run's query, answered by a worker)
 * until one has the turn's, at most {@link EARLIER_RUNS} runs back. None when no earlier run has it.
 */
export async function earlierTurnEvents(
  client: Client,
  workflowId: string,
  turnId: string,
): Promise<AgentEvent[]> {
  let runId = await continuedFrom(client, workflowId, undefined);
  for (let back = 0; runId !== undefined && back < EARLIER_RUNS; back++) {
    const run = new AgentRunHandle(client.workflow.getHandle(workflowId, runId));
    const events = (await run.listEvents()).filter((event) => event.payload.turn_id === turnId);
    if (events.length > 0) return events;
    runId = await continuedFrom(client, workflowId, runId);
  }
  return [];
}

/** The run a run continued as new from, read from its first history event. */
async function continuedFrom(
  client: Client,
  workflowId: string,
  runId: string | undefined,
): Promise<string | undefined> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, ...(runId ? { runId } : {}) },
    maximumPageSize: 1,
  });
  return history?.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
}
