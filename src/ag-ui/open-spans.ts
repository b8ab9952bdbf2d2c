import type * as Core from '@ag-ui/core';

/**
 * What is open at a place of an AG-UI stream (a step, a text message, sub-agent runs), tracked from
 * the events sent: so that a run that stops early closes it (AG-UI ends no run with anything open),
 * and a reader that joins in the middle gets it opened again (each AG-UI run opens its own).
 */
export class OpenSpans {
  readonly #type: typeof Core.EventType;
  #step: string | undefined;
  #text: string | undefined;
  readonly #subAgents = new Map<string, string>();

  constructor(eventType: typeof Core.EventType) {
    this.#type = eventType;
  }

  track(event: Core.Event): void {
    const E = this.#type;
    if (event.type === E.STEP_STARTED) this.#step = event.stepName;
    else if (event.type === E.STEP_FINISHED) this.#step = undefined;
    else if (event.type === E.TEXT_MESSAGE_START) this.#text = event.messageId;
    else if (event.type === E.TEXT_MESSAGE_END) this.#text = undefined;
    else if (event.type === E.SUBAGENT_STARTED) this.#subAgents.set(event.subagentRunId, event.name);
    else if (event.type === E.SUBAGENT_FINISHED || event.type === E.SUBAGENT_ERROR) {
      this.#subAgents.delete(event.subagentRunId);
    }
  }

  /** The events that open again what is open, outermost first. */
  open(): Core.Event[] {
    const E = this.#type;
    return [
      ...[...this.#subAgents].map(([subagentRunId, name]): Core.Event => ({
        type: E.SUBAGENT_STARTED,
        subagentRunId,
        name,
      })),
      ...(this.#step ? [{ type: E.STEP_STARTED, stepName: this.#step } as const] : []),
      ...(this.#text
        ? [{ type: E.TEXT_MESSAGE_START, messageId: this.#text, role: 'assistant' } as const]
        : []),
    ];
  }

  /**
   * The events that close what is open, innermost first; with `interruptIds`, the sub-agent runs
   * are suspended on those interrupts (the run stops because calls wait) rather than finished.
   */
  close(interruptIds?: string[]): Core.Event[] {
    const E = this.#type;
    const events: Core.Event[] = [];
    if (this.#text) events.push({ type: E.TEXT_MESSAGE_END, messageId: this.#text });
    if (this.#step) events.push({ type: E.STEP_FINISHED, stepName: this.#step });
    for (const subagentRunId of this.#subAgents.keys()) {
      events.push({
        type: E.SUBAGENT_FINISHED,
        subagentRunId,
        outcome: interruptIds ? { type: 'suspended', interruptIds } : { type: 'success' },
      });
    }
    this.#text = undefined;
    this.#step = undefined;
    this.#subAgents.clear();
    return events;
  }
}
