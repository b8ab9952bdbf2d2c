import { describe, expect, it } from 'vitest';
import { SiblingBudgets } from '../../src/subagents/workflow-sibling-budgets.ts';

describe('SiblingBudgets', () => {
  it('splits what is left among the children of a step, the last taking the remainder', () => {
    const siblings = new SiblingBudgets(2);
    const first = siblings.take({ maxTotalTokens: 70, maxToolCalls: 3 });
    const second = siblings.take({ maxTotalTokens: 70, maxToolCalls: 3 });
    expect(first.limits).toEqual({ maxTotalTokens: 35, maxToolCalls: 1 });
    expect(second.limits).toEqual({ maxTotalTokens: 35, maxToolCalls: 2 });
  });

  it('gives a later child what an ended sibling left, counted by the parent', () => {
    const siblings = new SiblingBudgets(2);
    const first = siblings.take({ maxTotalTokens: 100 });
    // The first child ended having spent 20: the parent has 80 left, none of it held.
    first.release();
    expect(siblings.take({ maxTotalTokens: 80 }).limits).toEqual({ maxTotalTokens: 80 });
  });

  it('gives a floor of one token and no tool calls once the budget is spent, and nothing without limits', () => {
    const siblings = new SiblingBudgets(3);
    expect(siblings.take({ maxTotalTokens: 1, maxToolCalls: 0 }).limits).toEqual({
      maxTotalTokens: 1,
      maxToolCalls: 0,
    });
    expect(siblings.take(undefined).limits).toBeUndefined();
  });
});
