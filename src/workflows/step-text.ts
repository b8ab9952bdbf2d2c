import type { TextDeltaSignal } from '../common/control.ts';

/**
 * The live text of the model step in flight, as its batches arrive (a step taken again writes it
 * anew under a higher attempt): what a stopped turn keeps of an answer it did not finish.
 */
export class StepText {
  #seq: number | undefined;
  #attempt = 0;
  #text = '';

  add(delta: TextDeltaSignal): void {
    if (delta.seq !== this.#seq || delta.attempt > this.#attempt) {
      this.#seq = delta.seq;
      this.#attempt = delta.attempt;
      this.#text = '';
    }
    if (delta.attempt === this.#attempt) this.#text += delta.text;
  }

  /** What the step at conversation position `seq` has written so far ('' for any other step). */
  at(seq: number): string {
    return this.#seq === seq ? this.#text : '';
  }
}
