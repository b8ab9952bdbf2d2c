import type { WorkflowHandle } from '@temporalio/client';
import type { AgentRunInput } from '../common/run.ts';
import { ConfigurationError } from '../errors.ts';

/**
 * The input a run was started with, from the first event of its history, decoded by the handle's
 * client (its data converter, so through the payload codec of an encrypted deployment).
 */
export async function startedInput(workflow: WorkflowHandle): Promise<AgentRunInput> {
  const history = await workflow.fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  const type = started?.workflowType?.name;
  if (type !== 'agentRun' && type !== 'deepAgentRun') {
    throw new ConfigurationError(
      `${workflow.workflowId} is a ${type ?? 'workflow of unknown type'}, not an agent run: only runs are recorded as cases.`,
    );
  }
  const [payload] = started?.input?.payloads ?? [];
  if (!payload) throw new ConfigurationError(`${workflow.workflowId} was started without an input.`);
  // Codecs encode in order, so they decode in reverse (as Temporal's client does).
  const { payloadCodecs, payloadConverter } = workflow.client.options.loadedDataConverter;
  let decoded = [payload];
  for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return payloadConverter.fromPayload<AgentRunInput>(decoded[0]!);
}
