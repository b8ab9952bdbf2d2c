/**
 * The workflow code as it was before `resolveRun` became a local activity (issue #13, item 8):
 * `npm run bench` bundles the workflows a second time with this module in place of
 * src/workflows/quick-activities.ts and measures both in the same run.
 */
import { quickActivities } from '../../src/workflows/quick-activities.ts';

export * from '../../src/workflows/quick-activities.ts';

/** `resolveRun` scheduled through the server like any other activity. */
export function resolveRunActivities(): typeof quickActivities {
  return quickActivities;
}

/** Turns resolve the run before their first model step (no opening step, which came later). */
export function opensWithStep(): boolean {
  return false;
}
