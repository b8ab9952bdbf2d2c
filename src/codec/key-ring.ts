import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ConfigurationError } from '../errors.ts';

/**
 * Payload encryption keys by id. Every key is 32 random bytes in base64 (`openssl rand -base64 32`).
 * New data is encrypted with `currentKeyId`; data written under any key listed keeps decrypting, so a
 * key is rotated by adding a new one, making it current, and keeping the old one.
 */
export interface PayloadEncryptionOptions {
  keys: Record<string, string>;
  currentKeyId: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Validated AES-256-GCM keys by id; seals and opens byte strings as `iv | ciphertext | tag`. */
export class KeyRing {
  readonly currentKeyId: string;
  readonly #keys: Map<string, Buffer>;

  constructor(options: PayloadEncryptionOptions, what = 'payload encryption') {
    if (!options || typeof options.keys !== 'object' || options.keys === null) {
      throw new ConfigurationError(`The ${what} keys must be an object of key id → base64 key.`);
    }
    this.#keys = new Map();
    for (const [id, value] of Object.entries(options.keys)) {
      if (!KEY_ID.test(id)) {
        throw new ConfigurationError(
          `The ${what} key id ${JSON.stringify(id)} is not valid: use 1-64 letters, digits, '.', '_' or '-'.`,
        );
      }
      const key = typeof value === 'string' ? Buffer.from(value.trim(), 'base64') : Buffer.alloc(0);
      if (key.length !== 32) {
        throw new ConfigurationError(
          `The ${what} key "${id}" is not 32 bytes of base64 (it decodes to ${key.length} bytes). ` +
            'Make one with: openssl rand -base64 32',
        );
      }
      this.#keys.set(id, key);
    }
    if (!this.#keys.has(options.currentKeyId)) {
      throw new ConfigurationError(
        `The current ${what} key id ${JSON.stringify(options.currentKeyId)} is not among the keys (${[...this.#keys.keys()].join(', ') || 'none'}).`,
      );
    }
    this.currentKeyId = options.currentKeyId;
  }

  /** Encrypts under the current key; `aad` (authenticated, not encrypted) binds the result to its place. */
  seal(plaintext: Uint8Array, aad?: Uint8Array): { keyId: string; sealed: Buffer } {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(this.currentKeyId)!, iv);
    if (aad) cipher.setAAD(aad);
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { keyId: this.currentKeyId, sealed: Buffer.concat([iv, body, cipher.getAuthTag()]) };
  }

  /** Decrypts what {@link seal} made under `keyId`. Throws when the key is unknown or the bytes were altered. */
  open(keyId: string, sealed: Uint8Array, aad?: Uint8Array): Buffer {
    const key = this.#keys.get(keyId);
    if (!key) {
      throw new ConfigurationError(
        `Data was encrypted with key "${keyId}", which is not among the configured keys (${[...this.#keys.keys()].join(', ')}). ` +
          'Keep old keys listed after a rotation.',
      );
    }
    const bytes = Buffer.from(sealed);
    if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('The encrypted data is truncated.');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    if (aad) decipher.setAAD(aad);
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
      decipher.final(),
    ]);
  }
}

/**
 * The encryption settings in effect: the option when given, else `TOOLKIT_PAYLOAD_KEYS`
 * (`id:base64,id:base64`, or a JSON object) with `TOOLKIT_PAYLOAD_KEY_ID` (needed when several keys
 * are listed), else none.
 */
export function resolveEncryption(
  option: PayloadEncryptionOptions | undefined,
  env: Record<string, string | undefined> = process.env,
): PayloadEncryptionOptions | undefined {
  if (option) return option;
  const listed = env.TOOLKIT_PAYLOAD_KEYS?.trim();
  if (!listed) return undefined;
  let keys: Record<string, string>;
  if (listed.startsWith('{')) {
    try {
      keys = JSON.parse(listed) as Record<string, string>;
    } catch {
      throw new ConfigurationError('TOOLKIT_PAYLOAD_KEYS looks like JSON but does not parse.');
    }
  } else {
    keys = {};
    for (const pair of listed.split(',')) {
      const at = pair.indexOf(':');
      if (at < 1)
        throw new ConfigurationError(
          'TOOLKIT_PAYLOAD_KEYS must be `id:base64key` pairs separated by commas.',
        );
      keys[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
    }
  }
  const ids = Object.keys(keys);
  const currentKeyId = env.TOOLKIT_PAYLOAD_KEY_ID?.trim() || (ids.length === 1 ? ids[0]! : '');
  if (!currentKeyId) {
    throw new ConfigurationError(
      `TOOLKIT_PAYLOAD_KEYS lists several keys (${ids.join(', ')}); name the one to encrypt with in TOOLKIT_PAYLOAD_KEY_ID.`,
    );
  }
  return { keys, currentKeyId };
}
