import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { ChatSessionInput } from '../common/chat.ts';
import type { AgentRunInput } from '../common/run.ts';
import { ConfigurationError } from '../errors.ts';

/** What a recorded workflow was started as: an agent run, or a chat session. */
export type StartedWorkflow =
  | { kind: 'run'; input: AgentRunInput }
  | { kind: 'chat'; input: ChatSessionInput; history: temporal.api.history.v1.IHistory };

/**
 * What a workflow was started with, from the first event of its history (the current run's, for a
 * chat session that continued as new), decoded by the handle's client: an agent run's input, or a
 * chat session's. Anything else is refused.
 */
export async function startedWorkflow(workflow: WorkflowHandle): Promise<StartedWorkflow> {
  const history = await workflow.fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const type = started?.workflowType?.name;
  if (type !== 'agentRun' && type !== 'deepAgentRun' && type !== 'chatSession') {
    throw new ConfigurationError(
      `${workflow.workflowId} is a ${type ?? 'workflow of unknown type'}, not an agent run or a chat session: only those are recorded as cases.`,
    );
  }
  const [payload] = started?.input?.payloads ?? [];
  if (!payload) throw new ConfigurationError(`${workflow.workflowId} was started without an input.`);
  if (type === 'chatSession') {
    return { kind: 'chat', input: await decodePayload<ChatSessionInput>(workflow, payload), history };
  }
  return { kind: 'run', input: await decodePayload<AgentRunInput>(workflow, payload) };
}

/**
 * A payload of the workflow's history as a value, decoded by the handle's client (its data
 * converter, so through the payload codec of an encrypted deployment).
 */
export async function decodePayload<T>(
  workflow: WorkflowHandle,
  payload: temporal.api.common.v1.IPayload,
): Promise<T> {
  // Codecs encode in order, so they decode in reverse (as Temporal's client does).
  const { payloadCodecs, payloadConverter } = workflow.client.options.loadedDataConverter;
  let decoded = [payload];
  for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return payloadConverter.fromPayload<T>(decoded[0]!);
}
