import type { RunLimits } from '../common/control.ts';

/** A child's share of its parent's budgets, and how to hand it back once the child has settled. */
export interface BudgetShare {
  readonly limits: RunLimits | undefined;
  /** Frees the share: the child's spending now counts in the parent's usage. */
  readonly release: () => void;
}

/**
 * What a run has left, shared among the sub-agent runs one model step starts in parallel (docs/structured-output-and-sub-agents.md):
 * each child gets an equal part of what is left when it starts, less what its running siblings
 * hold, so the children of a step together never get more than the parent had left. Workflow code.
 */
export class SiblingBudgets {
  /** Children of the step that have not started yet (this one included when it takes its share). */
  #waiting: number;
  readonly #held = { tokens: 0, toolCalls: 0 };

  constructor(children: number) {
    this.#waiting = children;
  }

  /** The share of a child starting now, given what the parent has left (undefined: no limits). */
  take(left: RunLimits | undefined): BudgetShare {
    const sharers = Math.max(1, this.#waiting);
    this.#waiting = Math.max(0, this.#waiting - 1);
    if (!left) return { limits: undefined, release: () => {} };
    const limits: RunLimits = {};
    // A spent budget still gives the child a floor of 1 token, so its first check stops it.
    if (left.maxTotalTokens !== undefined)
      limits.maxTotalTokens = Math.max(1, Math.floor((left.maxTotalTokens - this.#held.tokens) / sharers));
    if (left.maxToolCalls !== undefined)
      limits.maxToolCalls = Math.max(0, Math.floor((left.maxToolCalls - this.#held.toolCalls) / sharers));
    const tokens = limits.maxTotalTokens ?? 0;
    const toolCalls = limits.maxToolCalls ?? 0;
    this.#held.tokens += tokens;
    this.#held.toolCalls += toolCalls;
    return {
      limits,
      release: () => {
        this.#held.tokens -= tokens;
        this.#held.toolCalls -= toolCalls;
      },
    };
  }
}
