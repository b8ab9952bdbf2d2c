import { describe, expect, it } from 'vitest';
import { REDACTED, SecretSet } from '../../src/redaction.ts';

const SECRET = 'tok_9f8e7d6c5b4a';

describe('SecretSet', () => {
  it('redacts the plain, URL-encoded and JSON-escaped forms of a secret', () => {
    const secrets = new SecretSet();
    secrets.add('p@ss"word/123');
    expect(secrets.redact('a p@ss"word/123 b')).toBe(`a ${REDACTED} b`);
    expect(secrets.redact(`q=${encodeURIComponent('p@ss"word/123')}`)).toBe(`q=${REDACTED}`);
    expect(secrets.redact(JSON.stringify({ v: 'p@ss"word/123' }))).toBe(`{"v":"${REDACTED}"}`);
  });

  it.each([
    ['', 'bare'],
    ['a:', 'Basic user:token, one byte before'],
    ['ab:', 'two bytes before'],
    ['abc:', 'three bytes before'],
    ['{"user":"ada","token":"', 'inside JSON'],
  ])('finds the secret inside any base64 or base64url text (%s: %s)', (prefix) => {
    const secrets = new SecretSet();
    secrets.add(SECRET);
    for (const encoding of ['base64', 'base64url'] as const) {
      const encoded = Buffer.from(`${prefix}${SECRET}"}`).toString(encoding);
      const redacted = secrets.redact(`Authorization: Basic ${encoded}`);
      expect(redacted).toContain(REDACTED);
      // Whatever is left cannot be decoded back into the secret.
      const rest = redacted.replace('Authorization: Basic ', '').split(REDACTED);
      for (const piece of rest) expect(Buffer.from(piece, encoding).toString()).not.toContain(SECRET);
    }
  });

  it('leaves text without secrets alone and ignores values too short to be secrets', () => {
    const secrets = new SecretSet();
    secrets.add('abc');
    secrets.add(undefined);
    expect(secrets.size).toBe(0);
    expect(secrets.redact('abc abc')).toBe('abc abc');
  });
});
