import { describe, expect, it } from 'vitest';
import { parseVerdict } from '../../src/common/deep.ts';

describe('parseVerdict', () => {
  it.each([
    ['PASS', true, ''],
    ['pass: looks right', true, 'looks right'],
    [
      '**FAIL**\nThe total is wrong.\nAlso cite the source.',
      false,
      'The total is wrong.\nAlso cite the source.',
    ],
    ['The answer misses the second question.', false, 'The answer misses the second question.'],
    ['Passable, but incomplete', false, 'Passable, but incomplete'],
  ])('%j → pass=%s', (text, pass, feedback) => {
    expect(parseVerdict(text)).toEqual({ pass, feedback });
  });
});
