import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/credentials/file-store.ts';
import { CredentialError } from '../../src/errors.ts';

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'credentials-'));
  path = join(dir, 'nested', 'credentials.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function expectRefusedAndUnchanged(action: () => Promise<unknown>, message: RegExp): Promise<void> {
  const before = await readFile(path);
  const error = await action().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CredentialError);
  expect((error as Error).message).toMatch(message);
  expect(await readFile(path)).toEqual(before);
}

describe('FileCredentialStore', () => {
  it('stores, lists names only, deletes, and keeps tenants apart', async () => {
    const store = new FileCredentialStore({ path });
    expect(await store.list()).toEqual([]);
    await store.put({ name: 'mail', type: 'oauth2', token: 'secret-1', refresh_token: 'secret-2' });
    await store.put({ name: 'chat', type: 'bearer', token: 'secret-3' }, { tenant: 'ada' });
    expect(await store.list()).toEqual(['mail']);
    expect(await store.list({ tenant: 'ada' })).toEqual(['chat']);
    expect(JSON.stringify(await store.list())).not.toContain('secret');
    expect(await new FileCredentialStore({ path }).get('mail')).toMatchObject({ token: 'secret-1' });
    expect(await store.get('chat')).toBeUndefined();
    expect(await store.delete('chat', { tenant: 'ada' })).toBe(true);
    expect(await store.delete('chat', { tenant: 'ada' })).toBe(false);
    expect(await store.list({ tenant: 'ada' })).toEqual([]);
  });

  it('creates the file with mode 0600 and leaves no temporary files behind', async () => {
    await new FileCredentialStore({ path }).put({ name: 'x', type: 'bearer', token: 't1' });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(join(dir, 'nested'))).toEqual(['credentials.json']);
  });

  it('refuses a group- or world-readable file, saying how to fix it, and does not touch it', async () => {
    const store = new FileCredentialStore({ path });
    await store.put({ name: 'x', type: 'bearer', token: 't1' });
    await chmod(path, 0o644);
    await expectRefusedAndUnchanged(() => store.get('x'), /readable by other users \(mode 644\).*chmod 600/);
    await expectRefusedAndUnchanged(() => store.put({ name: 'y', type: 'bearer', token: 't2' }), /chmod 600/);
  });

  it('reports a corrupt file and never overwrites it', async () => {
    const store = new FileCredentialStore({ path });
    await store.put({ name: 'x', type: 'bearer', token: 't1' });
    await writeFile(path, '{"version": 1, "tenants": {"": {"x": ', { mode: 0o600 });
    await expectRefusedAndUnchanged(() => store.get('x'), /not valid JSON.*left as it is/);
    await expectRefusedAndUnchanged(
      () => store.put({ name: 'y', type: 'bearer', token: 't2' }),
      /not valid JSON/,
    );
    await writeFile(path, '["not", "a", "store"]', { mode: 0o600 });
    await expectRefusedAndUnchanged(() => store.delete('x'), /expected shape/);
  });

  it('encrypts at rest with a key, and refuses a wrong or missing key without touching the file', async () => {
    const store = new FileCredentialStore({ path, encryptionKey: 'correct horse battery staple' });
    await store.put({ name: 'custom_api', type: 'bearer', token: 'sk-very-secret-token' });
    const raw = await readFile(path, 'utf8');
    expect(raw).not.toContain('sk-very-secret-token');
    expect(raw).not.toContain('custom_api');
    expect(JSON.parse(raw)).toMatchObject({ encryption: 'aes-256-gcm', kdf: 'scrypt' });
    expect((await store.get('custom_api'))?.token).toBe('sk-very-secret-token');

    const wrong = new FileCredentialStore({ path, encryptionKey: 'wrong key' });
    await expectRefusedAndUnchanged(() => wrong.get('custom_api'), /key is wrong or the file was altered/);
    await expectRefusedAndUnchanged(() => wrong.put({ name: 'y', type: 'none', token: '' }), /key is wrong/);
    const previous = process.env.TOOLKIT_CREDENTIALS_KEY;
    delete process.env.TOOLKIT_CREDENTIALS_KEY;
    try {
      await expectRefusedAndUnchanged(
        () => new FileCredentialStore({ path }).list(),
        /is encrypted.*TOOLKIT_CREDENTIALS_KEY/,
      );
    } finally {
      if (previous !== undefined) process.env.TOOLKIT_CREDENTIALS_KEY = previous;
    }
  });

  it('takes the key from TOOLKIT_CREDENTIALS_KEY', async () => {
    const previous = process.env.TOOLKIT_CREDENTIALS_KEY;
    process.env.TOOLKIT_CREDENTIALS_KEY = 'from the environment';
    try {
      await new FileCredentialStore({ path }).put({ name: 'x', type: 'bearer', token: 'env-token-123' });
    } finally {
      if (previous === undefined) delete process.env.TOOLKIT_CREDENTIALS_KEY;
      else process.env.TOOLKIT_CREDENTIALS_KEY = previous;
    }
    expect(await readFile(path, 'utf8')).not.toContain('env-token-123');
    const store = new FileCredentialStore({ path, encryptionKey: 'from the environment' });
    expect((await store.get('x'))?.token).toBe('env-token-123');
  });

  // 200 each: without the lock, two writers at once lose records within the first few dozen puts (each
  // put rewrites the whole file, so 1,000 each took 37 s of a CI run for no more certainty).
  it('loses nothing when two processes put 200 records each at the same time', async () => {
    const writers = ['a', 'b'].map((prefix) =>
      spawn(process.execPath, ['test/fixtures/credential-writer.ts'], {
        env: { ...process.env, STORE_PATH: path, PREFIX: prefix, COUNT: '200' },
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    const codes = await Promise.all(writers.map(async (child) => (await once(child, 'exit'))[0] as number));
    expect(codes).toEqual([0, 0]);
    const names = await new FileCredentialStore({ path }).list();
    expect(names).toHaveLength(400);
    for (const prefix of ['a', 'b']) {
      for (const i of [0, 99, 199]) expect(names).toContain(`${prefix}-${i}`);
    }
  }, 120_000);
});
