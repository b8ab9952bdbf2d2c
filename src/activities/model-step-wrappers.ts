import { AsyncLocalStorage } from 'node:async_hooks';
import type { CallModelInput, ModelStep } from '../common/model-step.ts';

/** Work around one model step (a span, a metric): given the step's input, runs it and returns its result. */
export type ModelStepWrapper = (input: CallModelInput, step: () => Promise<ModelStep>) => Promise<ModelStep>;

const wrappers = new AsyncLocalStorage<readonly ModelStepWrapper[]>();

/**
 * Runs an activity with `wrapper` around each model step it takes inside itself (the first step a
 * run's opening step takes): activity interceptors (telemetry) use it to treat that step as they
 * treat a `callModel` activity. Wrappers set by enclosing interceptors stay, outermost first.
 */
export function withModelStepWrapper<T>(wrapper: ModelStepWrapper, work: () => Promise<T>): Promise<T> {
  return wrappers.run([...(wrappers.getStore() ?? []), wrapper], work);
}

/** A model step taken inside an activity, within the wrappers its interceptors set. */
export function wrappedModelStep(input: CallModelInput, step: () => Promise<ModelStep>): Promise<ModelStep> {
  const around = wrappers.getStore() ?? [];
  return around.reduceRight<() => Promise<ModelStep>>((inner, wrap) => () => wrap(input, inner), step)();
}
