/**
 * The AI SDK baseline of bench/floor.ts: `@temporalio/ai-sdk`'s loop (`generateText` over a model
 * whose steps are activities, tools whose `execute` runs an activity). On a worker of its own, so the
 * plugin weighs on no other baseline.
 */
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { proxyActivities } from '@temporalio/workflow';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import type { FloorActivities } from './activities.ts';

const { noop } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/** The AI SDK loop: `steps` model steps, every step but the last asking for the no-op tool. */
export async function aiSdkLoop(modelId: string, steps: number): Promise<string> {
  const result = await generateText({
    model: temporalProvider.languageModel(modelId),
    prompt: 'go',
    tools: {
      noop: tool({
        description: 'Does nothing',
        inputSchema: z.object({ n: z.number() }),
        execute: async ({ n }) => noop(n),
      }),
    },
    stopWhen: stepCountIs(steps),
  });
  return result.text;
}
