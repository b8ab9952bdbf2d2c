import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { KeyRing, resolveEncryption, type PayloadEncryptionOptions } from './key-ring.ts';

/** `metadata.encoding` of an encrypted payload (the name Temporal's encryption samples use). */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** `metadata` key naming the key a payload was encrypted with. */
export const ENCRYPTION_KEY_ID = 'encryption-key-id';

const { temporal } = proto;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A Temporal payload codec that encrypts every payload (workflow input, activity arguments and
 * results, update and query answers) with AES-256-GCM. The whole original payload, metadata
 * included, becomes the ciphertext; the new payload carries only `encoding: binary/encrypted` and the
 * key id, so old keys keep decrypting after a rotation.
 */
export class AesGcmPayloadCodec implements PayloadCodec {
  readonly #ring: KeyRing;

  constructor(options: PayloadEncryptionOptions) {
    this.#ring = new KeyRing(options);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const plain = temporal.api.common.v1.Payload.encode(payload).finish();
      const { keyId, sealed } = this.#ring.seal(plain);
      return {
        metadata: {
          encoding: encoder.encode(ENCRYPTED_ENCODING),
          [ENCRYPTION_KEY_ID]: encoder.encode(keyId),
        },
        data: sealed,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding;
      if (!encoding || decoder.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
      const keyIdBytes = payload.metadata?.[ENCRYPTION_KEY_ID];
      if (!keyIdBytes) throw new Error('An encrypted payload has no encryption-key-id.');
      const plain = this.#ring.open(decoder.decode(keyIdBytes), payload.data ?? new Uint8Array());
      return temporal.api.common.v1.Payload.decode(plain);
    });
  }
}

/**
 * The data converter for workers and clients: the AES-256-GCM codec when encryption is configured
 * (the option, else `TOOLKIT_PAYLOAD_KEYS` / `TOOLKIT_PAYLOAD_KEY_ID`), else nothing (Temporal's default).
 */
export function encryptionDataConverter(
  option: PayloadEncryptionOptions | undefined,
  env: Record<string, string | undefined> = process.env,
): DataConverter | undefined {
  const settings = resolveEncryption(option, env);
  return settings ? { payloadCodecs: [new AesGcmPayloadCodec(settings)] } : undefined;
}
