import { ConfigurationError } from '../errors.ts';
import type { RecordedVerdict } from './recorded.ts';
import type { GuardrailKind } from './types.ts';

/** What a check may say at most, as recorded (a longer reason is cut). */
const MAX_REASON_CHARS = 1_000;

/** What each kind of check may answer besides allow and tripwire. */
const ALLOWED: Record<GuardrailKind, ReadonlyArray<'replace' | 'retry' | 'reject'>> = {
  input: ['replace'],
  output: ['replace', 'retry'],
  tool: ['reject'],
};

/**
 * A check's answer in its recorded form, `redact`ed (the secrets its activity read); a clear error
 * (not retried) for an answer its kind cannot give.
 */
export function recordedVerdict(
  kind: GuardrailKind,
  check: string,
  answer: unknown,
  redact: (text: string) => string = (text) => text,
): RecordedVerdict {
  if (answer === undefined || answer === null || answer === true) return { allow: true };
  const said = (value: unknown): string => redact(String(value)).slice(0, MAX_REASON_CHARS);
  if (typeof answer === 'object') {
    const keys = Object.keys(answer);
    const verdict = answer as Record<string, unknown>;
    if (keys.length === 1) {
      const [key] = keys as [string];
      if (key === 'allow' && verdict.allow === true) return { allow: true };
      if (key === 'tripwire' && typeof verdict.tripwire === 'string')
        return { tripwire: said(verdict.tripwire) };
      const other = ALLOWED[kind].find((k) => k === key);
      if (other === 'replace' && (kind !== 'input' || typeof verdict.replace === 'string'))
        return { replace: typeof verdict.replace === 'string' ? redact(verdict.replace) : verdict.replace };
      if ((other === 'retry' || other === 'reject') && typeof verdict[other] === 'string')
        return other === 'retry' ? { retry: said(verdict.retry) } : { reject: said(verdict.reject) };
    }
  }
  const forms = ['undefined', '{ allow: true }', '{ tripwire: string }', ...ALLOWED[kind].map(formOf)];
  throw new ConfigurationError(
    `The ${kind} guardrail "${check}" answered ${describe(answer)}; ${kind === 'tool' ? 'a' : 'an'} ${kind} check answers ${forms.join(', ')}.`,
  );
}

function formOf(key: 'replace' | 'retry' | 'reject'): string {
  return key === 'replace' ? '{ replace: value }' : `{ ${key}: string }`;
}

function describe(answer: unknown): string {
  if (typeof answer !== 'object' || answer === null) return JSON.stringify(answer) ?? typeof answer;
  return `an object with keys ${Object.keys(answer).join(', ') || '(none)'}`;
}
