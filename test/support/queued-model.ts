import { ScriptedModel, type ScriptedStep } from '../../src/models/scripted.ts';

/** A scripted model whose steps a test adds as it goes (`push`), for workers shared by several tests. */
export function queuedModel(): ScriptedModel & { push(...steps: ScriptedStep[]): void } {
  const queue: ScriptedStep[] = [];
  const next = (): ScriptedStep => {
    const step = queue.shift();
    if (!step) throw new Error('The test queued no step for this model call.');
    return step;
  };
  return Object.assign(new ScriptedModel(Array.from({ length: 100 }, () => next)), {
    push: (...steps: ScriptedStep[]) => void queue.push(...steps),
  });
}
