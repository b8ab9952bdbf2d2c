/**
 * The baselines of bench/floor.ts, as workflow code: the same shapes as an agent run, with plain
 * Temporal activities, and with `@temporalio/ai-sdk`'s loop (`generateText` over a model whose steps
 * are activities, tools whose `execute` runs an activity).
 */
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { proxyActivities } from '@temporalio/workflow';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import type { FloorActivities } from './activities.ts';

const { noop, modelStep } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/** `count` no-op activities, one after the other (the floor of a run of that many steps). */
export async function plainActivities(count: number): Promise<number> {
  for (let i = 0; i < count; i++) await noop(i);
  return count;
}

/** The concurrent shape: a model step of `modelMs`, a tool call, a second model step. */
export async function plainAgentShape(modelMs: number): Promise<string> {
  await modelStep(modelMs);
  await noop(0);
  await modelStep(modelMs);
  return 'done';
}

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
