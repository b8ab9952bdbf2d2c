import { describe, expect, it } from 'vitest';
import { normalizeColorEnv, useColor } from '../../src/cli/color.ts';

const terminal = { isTTY: true, hasColors: () => true };
const pipe = { isTTY: false };

describe('the colour policy of the command (no-color.org, FORCE_COLOR)', () => {
  it('colours a terminal that has colours, and not a pipe', () => {
    expect(useColor(terminal, {})).toBe(true);
    expect(useColor({ isTTY: true, hasColors: () => false }, {})).toBe(false);
    expect(useColor(pipe, {})).toBe(false);
  });

  it('NO_COLOR turns colour off on a terminal, even when FORCE_COLOR is set too; an empty NO_COLOR is no setting', () => {
    expect(useColor(terminal, { NO_COLOR: '1' })).toBe(false);
    expect(useColor(terminal, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false);
    expect(useColor(terminal, { NO_COLOR: '' })).toBe(true);
  });

  it('FORCE_COLOR turns colour on without a terminal; FORCE_COLOR=0 or false turns it off', () => {
    expect(useColor(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColor(pipe, { FORCE_COLOR: '' })).toBe(true);
    expect(useColor(terminal, { FORCE_COLOR: '0' })).toBe(false);
    expect(useColor(terminal, { FORCE_COLOR: 'false' })).toBe(false);
  });

  it('settles the environment for the libraries that read it themselves', () => {
    const both: Record<string, string | undefined> = { NO_COLOR: '1', FORCE_COLOR: '3' };
    normalizeColorEnv(both);
    expect(both).toEqual({ NO_COLOR: '1' });
    const empty: Record<string, string | undefined> = { NO_COLOR: '', FORCE_COLOR: '1' };
    normalizeColorEnv(empty);
    expect(empty).toEqual({ FORCE_COLOR: '1' });
  });
});
