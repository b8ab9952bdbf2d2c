import type { LiveTextMessage } from './message.ts';

/** How long a step nobody says anything about is kept (its worker died before it closed). */
const FORGOTTEN_AFTER_MS = 10 * 60_000;

/** One step in flight: its text so far, as one message, and when it was last heard. */
interface OpenStep {
  said: Extract<LiveTextMessage, { kind: 'text' }>;
  heardAt: number;
}

/**
 * The text said so far of each model step in flight, by workflow, so that a reader that subscribes
 * in the middle of a step gets it whole: a step's text is kept from its first piece until it
 * closes (only the newest step of a run is kept: the ones before it have finished writing).
 */
export class OpenSteps {
  readonly #byWorkflow = new Map<string, Map<string, OpenStep>>();
  #sweptAt = Date.now();

  /** Keeps what `message` says of its step. */
  note(message: LiveTextMessage): void {
    const now = Date.now();
    if (now - this.#sweptAt > 60_000) this.#sweep(now);
    const steps = this.#byWorkflow.get(message.workflowId);
    const key = `${message.runId}:${message.seq}:${message.attempt}`;
    const step = steps?.get(key);
    if (message.kind === 'closed') {
      steps?.delete(key);
      if (steps?.size === 0) this.#byWorkflow.delete(message.workflowId);
      return;
    }
    if (message.kind === 'sent') {
      // The batch that starts the step was sent: its text is no longer held.
      if (step) {
        const { held: _held, opens: _opens, ...unheld } = step.said;
        step.said = unheld;
      }
      return;
    }
    if (!step) {
      const kept = steps ?? new Map<string, OpenStep>();
      for (const [other, old] of kept) if (old.said.runId === message.runId) kept.delete(other);
      kept.set(key, { said: { ...message }, heardAt: now });
      this.#byWorkflow.set(message.workflowId, kept);
      return;
    }
    step.heardAt = now;
    const end = step.said.offset + step.said.text.length;
    // A piece that does not follow on was lost on the way: the text kept stops before it.
    if (message.offset === end) step.said = { ...step.said, text: step.said.text + message.text };
  }

  /** The text so far of the steps of `workflowId` in flight, as one message each. */
  of(workflowId: string): LiveTextMessage[] {
    return [...(this.#byWorkflow.get(workflowId)?.values() ?? [])].map(({ said }) => said);
  }

  #sweep(now: number): void {
    this.#sweptAt = now;
    for (const [workflowId, steps] of this.#byWorkflow) {
      for (const [key, step] of steps) if (now - step.heardAt > FORGOTTEN_AFTER_MS) steps.delete(key);
      if (steps.size === 0) this.#byWorkflow.delete(workflowId);
    }
  }
}
