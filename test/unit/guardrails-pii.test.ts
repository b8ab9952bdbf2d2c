import { describe, expect, it } from 'vitest';
import { findPii, ibanChecks, luhnChecks, piiGuardrail, type PiiKind } from '../../src/guardrails/pii.ts';
import type { GuardrailContext } from '../../src/guardrails/types.ts';

const context: GuardrailContext = {
  agent: 'a',
  workflowId: 'w',
  runId: 'r',
  signal: new AbortController().signal,
};

/** Text, and the kinds found in it, in order (none: a negative case). */
const CASES: Array<[string, PiiKind[]]> = [
  ['Write to ada.lovelace@example.co.uk today', ['email']],
  ['mail: first+tag@mail-server.io', ['email']],
  ['Call +44 20 7946 0958 after 5', ['phone']],
  ['Call (555) 123-4567', ['phone']],
  ['Ruf 030 12345678 an', ['phone']],
  ['06 12 34 56 78', ['phone']],
  ['Card 4111 1111 1111 1111 exp 12/29', ['card']],
  ['card 5500-0000-0000-0004', ['card']],
  ['amex 378282246310005', ['card']],
  ['IBAN DE89 3704 0044 0532 0130 00 please', ['iban']],
  ['GB82WEST12345698765432', ['iban']],
  ['Mail bob@example.com, card 4012888888881881', ['email', 'card']],
  // Negative cases.
  ['Nothing personal here.', []],
  ['Order 123456789 shipped', []],
  ['On 2024-01-15 10:30 we met', []],
  ['Card 4111 1111 1111 1112 fails Luhn', []],
  ['IBAN DE89 3704 0044 0532 0130 02 fails mod-97', []],
  ['The sum is 1,234,567.89', []],
  ['version 1.2.3 and port 8080', []],
  ['user@localhost is not an address with a domain', []],
  ['Room 12 34', []],
];

describe('piiGuardrail', () => {
  it.each(CASES)('%s', (text, kinds) => {
    expect(findPii(text).map((f) => f.kind)).toEqual(kinds);
  });

  it('checks cards with Luhn and IBANs with mod-97', () => {
    expect(luhnChecks('4111111111111111')).toBe(true);
    expect(luhnChecks('4111111111111112')).toBe(false);
    expect(ibanChecks('DE89370400440532013000')).toBe(true);
    expect(ibanChecks('DE89370400440532013001')).toBe(false);
  });

  it('redacts by default, trips without the values when asked, and redacts each string of a structured answer', () => {
    const redact = piiGuardrail();
    expect(redact.check('Mail bob@example.com or call +1 415 555 2671', context)).toEqual({
      replace: 'Mail [EMAIL] or call [PHONE]',
    });
    expect(redact.check('nothing here', context)).toBeUndefined();
    const trip = piiGuardrail({ action: 'trip' });
    const verdict = trip.check({ text: 'card 4111 1111 1111 1111' }, context);
    expect(verdict).toEqual({ tripwire: 'personal data found (card)' });
    expect(JSON.stringify(verdict)).not.toContain('4111');
    expect(redact.check({ text: '{}', output: { to: ['bob@example.com'], n: 3 } }, context)).toEqual({
      replace: { to: ['[EMAIL]'], n: 3 },
    });
    expect(piiGuardrail({ kinds: ['email'] }).check('+1 415 555 2671', context)).toBeUndefined();
  });
});
