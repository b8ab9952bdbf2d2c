/**
 * The plain baselines of bench/floor.ts, as workflow code: the same shapes as an agent run, with
 * plain Temporal activities (and local activities: Temporal's own floor for fast tools).
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { FloorActivities } from './activities.ts';

const { noop, modelStep } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });
const local = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '2 seconds' });

/** `count` no-op activities, one after the other (the floor of a run of that many steps). */
export async function plainActivities(count: number): Promise<number> {
  for (let i = 0; i < count; i++) await noop(i);
  return count;
}

/**
 * Temporal's own floor for a run with fast tools: `steps` activities with a local no-op activity
 * between each (what a 4-model + 3-fast-tool run cannot go below).
 */
export async function plainWithLocalTools(steps: number): Promise<number> {
  for (let i = 0; i < steps; i++) {
    await noop(i);
    if (i < steps - 1) await local.noop(i);
  }
  return steps;
}

/** The concurrent shape with the tool call as a local activity: Temporal's floor for a fast tool. */
export async function plainAgentShapeLocalTool(modelMs: number): Promise<string> {
  await modelStep(modelMs);
  await local.noop(0);
  await modelStep(modelMs);
  return 'done';
}

/** The concurrent shape: a model step of `modelMs`, a tool call, a second model step. */
export async function plainAgentShape(modelMs: number): Promise<string> {
  await modelStep(modelMs);
  await noop(0);
  await modelStep(modelMs);
  return 'done';
}
