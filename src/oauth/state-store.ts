import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { writeFileAtomic } from '../fs/atomic-write.ts';

/** What an authorization request left behind for its callback. */
export interface OAuthStateEntry {
  /** The PKCE code verifier (absent for services without PKCE). */
  verifier?: string;
  redirect_uri: string;
  /** Which helper made the request: a state is only valid for it. */
  helper: string;
  /** Milliseconds since the epoch. */
  expires_at: number;
  /**
   * Set when a run asked for the grant (mid-run authorization): the tokens are stored for this tenant
   * (`null`: the shared records), whatever the helper's own `tenant`.
   */
  tenant?: string | null;
  /** The credential key the run waits for. */
  credential_key?: string;
  /** The workflow of the run that asked. */
  workflow_id?: string;
}

/** Pending authorization requests, by state. `take` removes the entry: a state works once. */
export interface OAuthStateStore {
  put(state: string, entry: OAuthStateEntry): Promise<void>;
  take(state: string): Promise<OAuthStateEntry | undefined>;
}

/** States in this process: for tests and for a login that starts and ends in one process. */
export class InMemoryOAuthStateStore implements OAuthStateStore {
  readonly #entries = new Map<string, OAuthStateEntry>();

  async put(state: string, entry: OAuthStateEntry): Promise<void> {
    this.#entries.set(state, { ...entry });
  }

  async take(state: string): Promise<OAuthStateEntry | undefined> {
    const entry = this.#entries.get(state);
    this.#entries.delete(state);
    return entry;
  }
}

/**
 * States in a JSON file (mode 0600), shared by processes and surviving a restart: the process that
 * builds the URL and the one that receives the callback need not be the same.
 */
export class FileOAuthStateStore implements OAuthStateStore {
  readonly path: string;

  constructor(opts: { path: string }) {
    this.path = opts.path;
  }

  async put(state: string, entry: OAuthStateEntry): Promise<void> {
    await this.#update((entries) => {
      entries[state] = entry;
    });
  }

  async take(state: string): Promise<OAuthStateEntry | undefined> {
    let taken: OAuthStateEntry | undefined;
    await this.#update((entries) => {
      taken = entries[state];
      delete entries[state];
    });
    return taken;
  }

  async #update(change: (entries: Record<string, OAuthStateEntry>) => void): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const release = await lockfile.lock(this.path, {
      realpath: false,
      lockfilePath: `${this.path}.lock`,
      retries: { retries: 200, minTimeout: 2, maxTimeout: 25 },
    });
    try {
      let entries: Record<string, OAuthStateEntry> = {};
      try {
        entries = JSON.parse(await readFile(this.path, 'utf8')) as Record<string, OAuthStateEntry>;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      const now = Date.now();
      // Long-expired states go; recently expired ones stay, so a late callback hears "expired", not "unknown".
      for (const [state, entry] of Object.entries(entries))
        if (entry.expires_at < now - 86_400_000) delete entries[state];
      change(entries);
      await writeFileAtomic(this.path, JSON.stringify(entries), 0o600);
    } finally {
      await release();
    }
  }
}
