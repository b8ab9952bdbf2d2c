import { setCurrentDetails } from '@temporalio/workflow';

/**
 * Shows in the Temporal UI where a run stands (workflow code): the step and the limit, and the
 * phase of a deep run.
 */
export function showStep(iteration: number, maxIterations: number, tags: Record<string, unknown>): void {
  const phase = typeof tags.phase === 'string' ? ` · ${tags.phase} phase` : '';
  setCurrentDetails(`**Step ${iteration}** of at most ${maxIterations}${phase}`);
}
