import type { GuardrailContext, GuardrailVerdict, InputGuardrail, OutputGuardrail } from './types.ts';
import type { GuardrailSubject } from './subject.ts';

/** The kinds of personal data {@link piiGuardrail} finds. */
export type PiiKind = 'email' | 'phone' | 'card' | 'iban';

export interface PiiGuardrailOptions {
  /** `'redact'` (default): go on with each finding replaced by `[EMAIL]`, `[PHONE]`, `[CARD]` or `[IBAN]`; `'trip'`: end the run. */
  action?: 'redact' | 'trip';
  /** What to look for. Default: all four kinds. */
  kinds?: PiiKind[];
  /** Default `'pii'`. */
  name?: string;
}

/** One finding: its kind and where it is in the text. */
export interface PiiFinding {
  kind: PiiKind;
  start: number;
  end: number;
}

const PATTERNS: Array<{ kind: PiiKind; pattern: RegExp; valid: (match: string) => boolean }> = [
  { kind: 'iban', pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b/g, valid: ibanChecks },
  { kind: 'card', pattern: /\b\d(?:[ -]?\d){12,18}\b/g, valid: luhnChecks },
  {
    kind: 'email',
    pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g,
    valid: () => true,
  },
  {
    kind: 'phone',
    pattern:
      /(?<![\w+]|\d[ .-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?)?\d{2,4}(?:[ .-]?\d{2,4}){1,5}(?![ .-]?\d|\w)/g,
    valid: phoneLike,
  },
];

/**
 * The personal data in `text`: mail addresses, phone numbers (9 to 15 digits, written as phone
 * numbers are: with a `+`, parentheses, separators or a leading 0), card numbers (13 to 19 digits
 * passing the Luhn check) and IBANs (passing the mod-97 check). Findings do not overlap; the
 * stricter kinds (IBAN, card) win.
 */
export function findPii(
  text: string,
  kinds: readonly PiiKind[] = ['email', 'phone', 'card', 'iban'],
): PiiFinding[] {
  const found: PiiFinding[] = [];
  for (const { kind, pattern, valid } of PATTERNS) {
    if (!kinds.includes(kind)) continue;
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (!valid(match[0]) || found.some((f) => start < f.end && f.start < end)) continue;
      found.push({ kind, start, end });
    }
  }
  return found.sort((a, b) => a.start - b.start);
}

/** `text` with each finding replaced by its kind's placeholder (`[EMAIL]`, `[PHONE]`, `[CARD]`, `[IBAN]`). */
export function redactPii(text: string, findings: readonly PiiFinding[]): string {
  let result = '';
  let at = 0;
  for (const { kind, start, end } of findings) {
    result += `${text.slice(at, start)}[${kind.toUpperCase()}]`;
    at = end;
  }
  return result + text.slice(at);
}

/**
 * A check for personal data in a prompt (as an input guardrail) or an answer (as an output
 * guardrail): mail addresses, phone numbers, card numbers (Luhn-checked) and IBANs (mod-97-checked).
 * It redacts them (default) or trips, saying which kinds it found, never the values. A pure
 * function: it runs as a local activity.
 *
 * @example
 * guardrails: { input: [piiGuardrail()], output: [piiGuardrail({ action: 'trip' })] }
 */
export function piiGuardrail(options: PiiGuardrailOptions = {}): InputGuardrail & OutputGuardrail {
  const action = options.action ?? 'redact';
  const kinds = options.kinds ?? ['email', 'phone', 'card', 'iban'];
  const check = (subject: GuardrailSubject, _context?: GuardrailContext): GuardrailVerdict<unknown> => {
    if (typeof subject === 'object' && 'phase' in subject) return undefined;
    if (typeof subject === 'string') return verdict(subject);
    if (subject.output === undefined) return verdict(subject.text);
    // A structured answer: each string in it.
    const kindsFound = new Set<PiiKind>();
    const redacted = mapStrings(subject.output, (value) => {
      const findings = findPii(value, kinds);
      for (const f of findings) kindsFound.add(f.kind);
      return redactPii(value, findings);
    });
    if (kindsFound.size === 0) return undefined;
    return action === 'trip' ? { tripwire: tripReason(kindsFound) } : { replace: redacted };
  };
  const verdict = (text: string): GuardrailVerdict<string> => {
    const findings = findPii(text, kinds);
    if (findings.length === 0) return undefined;
    if (action === 'trip') return { tripwire: tripReason(new Set(findings.map((f) => f.kind))) };
    return { replace: redactPii(text, findings) };
  };
  return {
    name: options.name ?? 'pii',
    check: check as InputGuardrail['check'] & OutputGuardrail['check'],
    runs: 'local',
  };
}

function tripReason(kinds: ReadonlySet<PiiKind>): string {
  return `personal data found (${[...kinds].join(', ')})`;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)]));
  return value;
}

/** The Luhn check of a card number (spaces and dashes ignored). */
export function luhnChecks(number: string): boolean {
  const digits = number.replace(/[ -]/g, '');
  if (!/^\d{13,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** The mod-97 check of an IBAN (ISO 13616; spaces ignored). */
export function ibanChecks(iban: string): boolean {
  const compact = iban.replace(/ /g, '');
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(compact)) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

/** Written as a phone number: 9 to 15 digits, with a `+`, parentheses, separators or a leading 0. */
function phoneLike(match: string): boolean {
  const digits = match.replace(/\D/g, '');
  if (digits.length < 9 || digits.length > 15) return false;
  if (/^\d{4}-\d{2}-\d{2}/.test(match)) return false; // a date (and a time after it)
  return /^\+|\(/.test(match) || /[ .-]/.test(match.trim()) || match.startsWith('0');
}
