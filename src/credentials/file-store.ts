import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { ConfigurationError, CredentialError } from '../errors.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { decryptJson, encryptJson, isEncryptedEnvelope } from './encryption.ts';
import { assertValidRecord } from './in-memory.ts';
import type { CredentialRecord, CredentialStore } from './types.ts';

const SHARED = '';

/** What the file holds: records by tenant ('' is the shared tenant), then by name. */
interface StoreFile {
  version: 1;
  tenants: Record<string, Record<string, CredentialRecord>>;
}

export interface FileCredentialStoreOptions {
  /** The JSON file. Created with mode 0600 on the first `put`. */
  path: string;
  /**
   * Encrypts the file at rest with AES-256-GCM under a key derived from this passphrase (scrypt).
   * Default: the `TOOLKIT_CREDENTIALS_KEY` environment variable; without either, plain JSON.
   */
  encryptionKey?: string;
  /** How long a `put` or `delete` waits for another process's lock. Default 10 s. */
  lockTimeoutMs?: number;
}

/**
 * Credentials in one JSON file, for local development (docs/credentials-and-oauth.md). Writes are atomic (temporary
 * file, fsync, rename) under a lock shared across processes, so two processes writing at once lose
 * nothing. The file is created with mode 0600 and a group- or world-readable file is refused. A file
 * that cannot be read or parsed is reported and never overwritten.
 *
 * @example
 * const store = new FileCredentialStore({ path: '~/.toolkit-agent/credentials.json' });
 * await store.put({ name: 'custom_api', type: 'bearer', token: '...', metadata: { base_url: 'https://api.example.com' } });
 */
export class FileCredentialStore implements CredentialStore {
  readonly path: string;
  readonly #key: string | undefined;
  readonly #lockTimeoutMs: number;

  constructor(opts: FileCredentialStoreOptions) {
    if (!opts?.path)
      throw new ConfigurationError(
        "FileCredentialStore needs a `path`, e.g. new FileCredentialStore({ path: './credentials.json' }).",
      );
    this.path = opts.path;
    this.#key = opts.encryptionKey ?? process.env.TOOLKIT_CREDENTIALS_KEY ?? undefined;
    this.#lockTimeoutMs = opts.lockTimeoutMs ?? 10_000;
  }

  async get(name: string, opts?: { tenant?: string }): Promise<CredentialRecord | undefined> {
    const file = await this.#read();
    return file.tenants[opts?.tenant ?? SHARED]?.[name];
  }

  async list(opts?: { tenant?: string }): Promise<string[]> {
    const file = await this.#read();
    return Object.keys(file.tenants[opts?.tenant ?? SHARED] ?? {}).sort();
  }

  async put(record: CredentialRecord, opts?: { tenant?: string }): Promise<void> {
    assertValidRecord(record);
    await this.#update((file) => {
      const tenant = opts?.tenant ?? SHARED;
      file.tenants[tenant] = { ...file.tenants[tenant], [record.name]: structuredClone(record) };
      return true;
    });
  }

  async delete(name: string, opts?: { tenant?: string }): Promise<boolean> {
    let deleted = false;
    await this.#update((file) => {
      const records = file.tenants[opts?.tenant ?? SHARED];
      if (!records || !(name in records)) return false;
      delete records[name];
      deleted = true;
      return true;
    });
    return deleted;
  }

  /** An exclusive lock on one credential across processes (a lock folder beside the file). */
  async withLock<T>(name: string, opts: { tenant?: string }, work: () => Promise<T>): Promise<T> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const id = Buffer.from(`${opts.tenant ?? SHARED}\n${name}`).toString('base64url');
    // proper-lockfile keys its locks by the locked path: give each credential a path of its own.
    const release = await lockfile.lock(`${this.path}.${id}`, {
      realpath: false,
      lockfilePath: `${this.path}.${id}.lock`,
      stale: 30_000,
      retries: { retries: Math.ceil(this.#lockTimeoutMs / 25), minTimeout: 5, maxTimeout: 25, factor: 1.5 },
    });
    try {
      return await work();
    } finally {
      await release();
    }
  }

  /** Reads, changes and writes the file under the cross-process lock. */
  async #update(change: (file: StoreFile) => boolean): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const release = await this.#lock();
    try {
      const file = await this.#read();
      if (change(file)) await this.#write(file);
    } finally {
      await release();
    }
  }

  async #lock(): Promise<() => Promise<void>> {
    try {
      return await lockfile.lock(this.path, {
        realpath: false,
        lockfilePath: `${this.path}.lock`,
        stale: 10_000,
        retries: { retries: Math.ceil(this.#lockTimeoutMs / 25), minTimeout: 2, maxTimeout: 25, factor: 1.5 },
      });
    } catch (error) {
      throw new CredentialError(
        `Could not lock ${this.path} within ${this.#lockTimeoutMs} ms (another process holds ${this.path}.lock). ` +
          'If no other process is using the store, remove the lock folder.',
        { cause: error },
      );
    }
  }

  async #read(): Promise<StoreFile> {
    let text: string;
    try {
      const info = await stat(this.path);
      if ((info.mode & 0o077) !== 0) {
        throw new CredentialError(
          `The credential file ${this.path} is readable by other users (mode ${(info.mode & 0o777).toString(8)}). ` +
            `Restrict it with: chmod 600 ${this.path}`,
        );
      }
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, tenants: {} };
      if (error instanceof CredentialError) throw error;
      throw new CredentialError(`Cannot read the credential file ${this.path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return this.#parse(text);
  }

  #parse(text: string): StoreFile {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new CredentialError(
        `The credential file ${this.path} is not valid JSON (${(error as Error).message}). ` +
          'It was left as it is: repair it, or move it away to start a new store.',
        { cause: error },
      );
    }
    if (isEncryptedEnvelope(parsed)) {
      if (!this.#key) {
        throw new CredentialError(
          `The credential file ${this.path} is encrypted. Give its key as \`encryptionKey\` or in TOOLKIT_CREDENTIALS_KEY.`,
        );
      }
      parsed = decryptJson(parsed, this.#key, this.path);
    }
    const file = parsed as StoreFile;
    if (file?.version !== 1 || typeof file.tenants !== 'object' || file.tenants === null) {
      throw new CredentialError(
        `The credential file ${this.path} does not have the expected shape ({ "version": 1, "tenants": {...} }). ` +
          'It was left as it is: repair it, or move it away to start a new store.',
      );
    }
    return file;
  }

  async #write(file: StoreFile): Promise<void> {
    const body = JSON.stringify(this.#key ? encryptJson(file, this.#key) : file, null, 2);
    await writeFileAtomic(this.path, `${body}\n`, 0o600);
  }
}
