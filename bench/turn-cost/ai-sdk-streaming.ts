/**
 * The AI SDK baseline of bench/turn-cost.ts: `@temporalio/ai-sdk`'s streaming, `streamText` over a
 * model whose step is an activity that publishes the stream's parts to the workflow's stream
 * (`@temporalio/workflow-streams`, signals in ~100 ms batches), read by a `WorkflowStreamClient`.
 */
import { TemporalProvider } from '@temporalio/ai-sdk/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import { streamText } from 'ai';

/** One streamed answer of the bench model, published on the `text` topic. */
export async function aiSdkStreaming(modelId: string): Promise<string> {
  new WorkflowStream();
  const result = streamText({
    model: new TemporalProvider({
      languageModel: { startToCloseTimeout: '1 minute', streamingTopic: 'text' },
    }).languageModel(modelId),
    prompt: 'Write 1,000 tokens',
  });
  return await result.text;
}
