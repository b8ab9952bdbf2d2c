import { describe, expect, it } from 'vitest';
import { capText } from '../../src/common/text.ts';

describe('capText', () => {
  it('keeps short text as it is', () => {
    expect(capText('hello', 5)).toEqual({ text: 'hello', truncated: false });
  });

  it('cuts long text and says how much was shown', () => {
    const { text, truncated } = capText('x'.repeat(50), 10);
    expect(truncated).toBe(true);
    expect(text).toBe(`${'x'.repeat(10)}\n[output truncated: showed 10 of 50 characters]`);
  });

  it('never splits a surrogate pair', () => {
    const { text } = capText('ab😀cd', 3);
    expect(text.startsWith('ab\n')).toBe(true);
    expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
