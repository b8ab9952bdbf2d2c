import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/errors.ts';
import { registerGuardrails } from '../../src/guardrails/registered.ts';
import { recordedVerdict } from '../../src/guardrails/verdict.ts';

describe('guardrail verdicts', () => {
  it('records each form a kind may answer, redacted and cut', () => {
    for (const allow of [undefined, null, true, { allow: true }])
      expect(recordedVerdict('input', 'c', allow)).toEqual({ allow: true });
    expect(recordedVerdict('input', 'c', { replace: 'new' })).toEqual({ replace: 'new' });
    expect(recordedVerdict('output', 'c', { replace: { a: 1 } })).toEqual({ replace: { a: 1 } });
    expect(recordedVerdict('output', 'c', { retry: 'shorter' })).toEqual({ retry: 'shorter' });
    expect(recordedVerdict('tool', 'c', { reject: 'no' })).toEqual({ reject: 'no' });
    expect(
      recordedVerdict('tool', 'c', { tripwire: 'token sk-1234 leaked' }, (t) =>
        t.replace('sk-1234', '[REDACTED]'),
      ),
    ).toEqual({
      tripwire: 'token [REDACTED] leaked',
    });
    expect(
      (recordedVerdict('input', 'c', { tripwire: 'x'.repeat(5000) }) as { tripwire: string }).tripwire,
    ).toHaveLength(1000);
  });

  it('refuses a form the kind cannot answer, naming the check and the forms it may', () => {
    expect(() => recordedVerdict('input', 'screen', { retry: 'again' })).toThrow(ConfigurationError);
    expect(() => recordedVerdict('input', 'screen', { retry: 'again' })).toThrow(
      'The input guardrail "screen" answered an object with keys retry; an input check answers undefined, { allow: true }, { tripwire: string }, { replace: value }.',
    );
    expect(() => recordedVerdict('tool', 't', { replace: 'x' })).toThrow(/\{ reject: string \}/);
    expect(() => recordedVerdict('output', 'o', false)).toThrow(/answered false/);
    expect(() => recordedVerdict('input', 'i', { replace: 42 })).toThrow(ConfigurationError);
  });

  it("checks an agent's guardrails at start-up: shapes, names, modes", () => {
    expect(registerGuardrails('a', undefined)).toBeUndefined();
    expect(registerGuardrails('a', { input: [] })).toBeUndefined();
    function screen(): undefined {
      return undefined;
    }
    expect([...registerGuardrails('a', { input: [screen] })!.input.keys()]).toEqual(['screen']);
    expect(() => registerGuardrails('a', { inputs: [] } as never)).toThrow(/unknown key\(s\) "inputs"/);
    expect(() => registerGuardrails('a', { input: [{ name: 'x' }] } as never)).toThrow(
      /guardrails.input\[0\] must be a function or an object \{ name, check \}/,
    );
    expect(() =>
      registerGuardrails('a', {
        input: [
          { name: 'x', check: screen },
          { name: 'x', check: screen },
        ],
      }),
    ).toThrow(/two input guardrails named "x"/);
    expect(() =>
      registerGuardrails('a', { input: [{ name: 'x', check: screen, mode: 'later' as never }] }),
    ).toThrow(/use 'blocking' or 'parallel'/);
    expect(() =>
      registerGuardrails('a', { output: [{ name: 'x', check: screen, runs: 'workflow' as never }] }),
    ).toThrow(/use 'activity' or 'local'/);
  });
});
