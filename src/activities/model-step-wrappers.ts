import { AsyncLocalStorage } from 'node:async_hooks';
import type { CallModelInput, ModelStep } from '../common/model-step.ts';

/** Work around one piece of an activity (a span, a metric): given its input, runs it and returns its result. */
export type WorkWrapper<I, R> = (input: I, work: () => Promise<R>) => Promise<R>;

/** Wrappers around one kind of work done inside activities, set by the activity interceptors. */
function wrapperChain<I, R>() {
  const wrappers = new AsyncLocalStorage<readonly WorkWrapper<I, R>[]>();
  return {
    /** Runs an activity with `wrapper` around each such piece of work it does; enclosing wrappers stay, outermost first. */
    with<T>(wrapper: WorkWrapper<I, R>, activity: () => Promise<T>): Promise<T> {
      return wrappers.run([...(wrappers.getStore() ?? []), wrapper], activity);
    },
    /** The work, within the wrappers its activity's interceptors set. */
    wrapped(input: I, work: () => Promise<R>): Promise<R> {
      const around = wrappers.getStore() ?? [];
      return around.reduceRight<() => Promise<R>>((inner, wrap) => () => wrap(input, inner), work)();
    },
  };
}

/** Work around one model step (a span, a metric): given the step's input, runs it and returns its result. */
export type ModelStepWrapper = WorkWrapper<CallModelInput, ModelStep>;

const modelSteps = wrapperChain<CallModelInput, ModelStep>();

/**
 * Runs an activity with `wrapper` around each model step it takes inside itself (the first step a
 * run's opening step takes): activity interceptors (telemetry) use it to treat that step as they
 * treat a `callModel` activity. Wrappers set by enclosing interceptors stay, outermost first.
 */
export function withModelStepWrapper<T>(wrapper: ModelStepWrapper, work: () => Promise<T>): Promise<T> {
  return modelSteps.with(wrapper, work);
}

/** A model step taken inside an activity, within the wrappers its interceptors set. */
export function wrappedModelStep(input: CallModelInput, step: () => Promise<ModelStep>): Promise<ModelStep> {
  return modelSteps.wrapped(input, step);
}

/** A turn's `'auto'` recall from long-term memory, as its wrappers see it: whose turn, and what it found. */
export interface MemoryRecallWork {
  agent: string;
  conversationId: string;
  tenant?: string;
}

/** What a turn's recall found: the ids of the remembered messages put in its prompt. */
export interface MemoryRecallResult {
  ids: string[];
}

const memoryRecalls = wrapperChain<MemoryRecallWork, MemoryRecallResult>();

/** Runs an activity with `wrapper` around each `'auto'` recall it does when it opens a turn (telemetry's span). */
export function withMemoryRecallWrapper<T>(
  wrapper: WorkWrapper<MemoryRecallWork, MemoryRecallResult>,
  work: () => Promise<T>,
): Promise<T> {
  return memoryRecalls.with(wrapper, work);
}

/** A turn's `'auto'` recall, within the wrappers its activity's interceptors set. */
export function wrappedMemoryRecall<R extends MemoryRecallResult>(
  input: MemoryRecallWork,
  recall: () => Promise<R>,
): Promise<R> {
  return memoryRecalls.wrapped(input, recall) as Promise<R>;
}
