/** Values shorter than this are not treated as secrets: redacting them would garble ordinary text. */
const MIN_SECRET_LENGTH = 4;
export const REDACTED = '[REDACTED]';

/**
 * The secret values one activity has read. Everything the activity returns or throws passes through
 * {@link SecretSet.redact}, so a secret that an upstream echoes back never leaves the activity.
 */
export class SecretSet {
  readonly #values = new Set<string>();

  /** Remembers a secret and the encodings in which it commonly reappears (Basic auth, URL-encoding). */
  add(value: string | undefined): void {
    if (!value || value.length < MIN_SECRET_LENGTH) return;
    this.#values.add(value);
    this.#values.add(encodeURIComponent(value));
    this.#values.add(Buffer.from(value).toString('base64'));
    this.#values.add(JSON.stringify(value).slice(1, -1));
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
