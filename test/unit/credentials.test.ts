import { describe, expect, it } from 'vitest';
import { InMemoryCredentialStore } from '../../src/credentials/in-memory.ts';
import { secretValuesOf } from '../../src/credentials/types.ts';
import { ConfigurationError } from '../../src/errors.ts';

describe('InMemoryCredentialStore', () => {
  it('stores, lists names only, and deletes records', async () => {
    const store = new InMemoryCredentialStore();
    await store.put({ name: 'mail', type: 'oauth2', token: 'secret-a', refresh_token: 'secret-b' });
    await store.put({ name: 'chat', type: 'bearer', token: 'secret-c' });
    expect(await store.list()).toEqual(['chat', 'mail']);
    expect(JSON.stringify(await store.list())).not.toContain('secret');
    expect(await store.get('mail')).toMatchObject({ token: 'secret-a', refresh_token: 'secret-b' });
    expect(await store.delete('mail')).toBe(true);
    expect(await store.delete('mail')).toBe(false);
    expect(await store.get('mail')).toBeUndefined();
  });

  it('keeps tenants apart', async () => {
    const store = new InMemoryCredentialStore();
    await store.put({ name: 'chat', type: 'bearer', token: 'shared' });
    await store.put({ name: 'chat', type: 'bearer', token: 'ada' }, { tenant: 'ada' });
    expect((await store.get('chat'))?.token).toBe('shared');
    expect((await store.get('chat', { tenant: 'ada' }))?.token).toBe('ada');
    expect(await store.get('chat', { tenant: 'bob' })).toBeUndefined();
    expect(await store.list({ tenant: 'bob' })).toEqual([]);
  });

  it('hands out copies, so a caller cannot change a stored record by accident', async () => {
    const store = new InMemoryCredentialStore();
    await store.put({ name: 'x', type: 'bearer', token: 't1', metadata: { base_url: 'http://a' } });
    const copy = (await store.get('x'))!;
    copy.metadata!.base_url = 'http://evil';
    expect((await store.get('x'))?.metadata?.base_url).toBe('http://a');
  });

  it('refuses a record a connector could not use, naming the field', async () => {
    const store = new InMemoryCredentialStore();
    await expect(store.put({ name: '', type: 'bearer', token: 't' })).rejects.toThrow(/non-empty `name`/);
    await expect(store.put({ name: 'x', type: 'magic' as never, token: 't' })).rejects.toThrow(
      ConfigurationError,
    );
    await expect(store.put({ name: 'x', type: 'magic' as never, token: 't' })).rejects.toThrow(
      /oauth2, bearer/,
    );
  });
});

describe('secretValuesOf', () => {
  it('finds tokens, client secrets and auth-bearing default headers, and nothing else', () => {
    const values = secretValuesOf({
      name: 'custom_api',
      type: 'api_key',
      token: 'tok-1',
      refresh_token: 'ref-1',
      metadata: {
        base_url: 'https://api.example.com',
        client_secret: 'cs-1',
        default_headers: { Authorization: 'Token hdr-1', 'X-Team': 'blue' },
      },
    });
    expect(values).toEqual(expect.arrayContaining(['tok-1', 'ref-1', 'cs-1', 'Token hdr-1', 'hdr-1']));
    expect(values).not.toContain('https://api.example.com');
    expect(values).not.toContain('blue');
  });
});
