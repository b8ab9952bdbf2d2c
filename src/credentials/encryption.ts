import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { CredentialError } from '../errors.ts';

/** The encrypted form of a credential file: AES-256-GCM under a key derived from a passphrase with scrypt. */
export interface EncryptedEnvelope {
  version: 1;
  encryption: 'aes-256-gcm';
  kdf: 'scrypt';
  salt: string;
  iv: string;
  tag: string;
  data: string;
}

export function isEncryptedEnvelope(value: unknown): value is EncryptedEnvelope {
  return (value as EncryptedEnvelope | null)?.encryption === 'aes-256-gcm';
}

/** Derived keys by passphrase and salt: scrypt is slow on purpose, and a store reads often. */
const derived = new Map<string, Buffer>();

function deriveKey(passphrase: string, salt: Buffer): Buffer {
  const id = `${salt.toString('base64')}:${passphrase}`;
  let key = derived.get(id);
  if (!key) {
    key = scryptSync(passphrase, salt, 32);
    derived.set(id, key);
  }
  return key;
}

/** One salt per process, so writes reuse one derived key. */
const processSalt = randomBytes(16);

export function encryptJson(value: unknown, passphrase: string): EncryptedEnvelope {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(passphrase, processSalt), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return {
    version: 1,
    encryption: 'aes-256-gcm',
    kdf: 'scrypt',
    salt: processSalt.toString('base64'),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
}

export function decryptJson(envelope: EncryptedEnvelope, passphrase: string, path: string): unknown {
  try {
    const key = deriveKey(passphrase, Buffer.from(envelope.salt, 'base64'));
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64'));
    decipher.setAuthTag(Buffer.from(envelope.tag, 'base64'));
    const text = Buffer.concat([decipher.update(Buffer.from(envelope.data, 'base64')), decipher.final()]);
    return JSON.parse(text.toString('utf8'));
  } catch (error) {
    throw new CredentialError(
      `Cannot decrypt the credential file ${path}: the key is wrong or the file was altered. ` +
        'Use the key it was written with (encryptionKey or TOOLKIT_CREDENTIALS_KEY). The file was left as it is.',
      { cause: error },
    );
  }
}
