/** Values shorter than this are not treated as secrets: redacting them would garble ordinary text. */
const MIN_SECRET_LENGTH = 4;
export const REDACTED = '[REDACTED]';

/**
 * The secret values one activity has read. Everything the activity returns or throws passes through
 * {@link SecretSet.redact}, so a secret that an upstream echoes back never leaves the activity.
 */
export class SecretSet {
  readonly #values = new Set<string>();

  /**
   * Remembers a secret and the encodings in which it commonly reappears: URL-encoded, JSON-escaped,
   * and base64 or base64url inside any larger encoded string (Basic auth's `user:token`, a JWT, an
   * upstream that echoes an encoded header).
   */
  add(value: string | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH) return;
    this.#values.add(value);
    this.#values.add(encodeURIComponent(value));
    this.#values.add(JSON.stringify(value).slice(1, -1));
    for (const core of embeddedBase64Forms(value)) this.#values.add(core);
  }

  get size(): number {
    return this.#values.size;
  }

  /** Replaces every remembered secret in `text`, longest first so that overlapping values vanish whole. */
  redact(text: string): string {
    if (this.#values.size === 0) return text;
    let result = text;
    for (const value of [...this.#values].sort((a, b) => b.length - a.length)) {
      if (value.length >= MIN_SECRET_LENGTH) result = result.split(value).join(REDACTED);
    }
    return result;
  }
}

/**
 * The base64 characters that encode `value` wherever it sits in a longer string: one form for each of
 * the three byte alignments, trimmed to the characters that depend on the secret's bytes alone.
 */
function embeddedBase64Forms(value: string): string[] {
  const bytes = Buffer.from(value);
  const forms: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]);
    const start = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * encoded.length) / 6);
    for (const encoding of ['base64', 'base64url'] as const) {
      const core = encoded.toString(encoding).slice(start, end);
      if (core.length >= 8) forms.push(core);
    }
  }
  return forms;
}
