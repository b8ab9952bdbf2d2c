import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  PostgresCredentialStore,
  type PostgresCredentialStoreOptions,
} from '../../src/credentials/postgres.ts';
import { CredentialError } from '../../src/errors.ts';
import { DriveSuiteOAuthHelper } from '../../src/oauth/drive-suite.ts';
import { PostgresOAuthStateStore } from '../../src/oauth/postgres-state-store.ts';
import {
  authorizeMail,
  startAuthorizationServer,
  type LocalAuthorizationServer,
} from '../support/oidc-server.ts';
import { startNodeProcess } from './processes.ts';

const url = inject('postgresUrl');
if (!url) console.warn(`Skipping the PostgreSQL credential tests: ${inject('postgresSkipped')}`);

const C1 = randomBytes(32).toString('base64');
const C2 = randomBytes(32).toString('base64');

describe.skipIf(!url)(
  'PostgresCredentialStore and PostgresOAuthStateStore on a real PostgreSQL server',
  () => {
    const closers: Array<{ close(): Promise<void> }> = [];
    let admin: pg.Pool;
    beforeAll(() => {
      admin = new pg.Pool({ connectionString: url, max: 2 });
    });
    afterAll(async () => {
      for (const c of closers) await c.close();
      await admin?.end();
    });
    function store(table: string, encryptionKey: PostgresCredentialStoreOptions['encryptionKey']) {
      const s = new PostgresCredentialStore({ connectionString: url, table, encryptionKey });
      closers.push(s);
      return s;
    }

    it('keeps records per tenant, lists names only, and stores only ciphertext (not in the table file)', async () => {
      const table = `creds_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const credentials = store(table, 'a passphrase for the test');
      const token = `tok-${randomUUID()}`;
      const secret = `client-secret-${randomUUID()}`;
      await credentials.put({
        name: 'custom_api',
        type: 'bearer',
        token,
        metadata: { client_secret: secret },
      });
      await credentials.put({ name: 'custom_api', type: 'bearer', token: 'tenant-a-token' }, { tenant: 'a' });
      await credentials.put({ name: 'mail', type: 'bearer', token: 'tenant-a-mail' }, { tenant: 'a' });

      expect((await credentials.get('custom_api'))!.token).toBe(token);
      expect((await credentials.get('custom_api', { tenant: 'a' }))!.token).toBe('tenant-a-token');
      expect(await credentials.get('mail')).toBeUndefined();
      expect(await credentials.list()).toEqual(['custom_api']);
      expect(await credentials.list({ tenant: 'a' })).toEqual(['custom_api', 'mail']);
      expect(await credentials.delete('mail', { tenant: 'a' })).toBe(true);
      expect(await credentials.delete('mail', { tenant: 'a' })).toBe(false);

      const rows = await admin.query<{ row: string }>(`SELECT t::text AS row FROM ${table} t`);
      expect(rows.rows).toHaveLength(2);
      for (const { row } of rows.rows) {
        expect(row).toContain('custom_api');
        expect(row).not.toContain(token);
        expect(row).not.toContain('tenant-a-token');
      }
      // The bytes on disk: the name is there (the right file), the token and client secret are not.
      await admin.query('CHECKPOINT');
      const where = await admin.query<{ dir: string; path: string }>(
        `SELECT current_setting('data_directory') AS dir, pg_relation_filepath($1) AS path`,
        [table],
      );
      const bytes = await readFile(join(where.rows[0]!.dir, where.rows[0]!.path));
      expect(bytes.includes('custom_api')).toBe(true);
      for (const plain of [token, secret, 'tenant-a-token']) expect(bytes.includes(plain)).toBe(false);

      // Another passphrase cannot read it, and says which key the row needs.
      const stranger = store(table, 'another passphrase');
      await expect(stranger.get('custom_api')).rejects.toThrow(CredentialError);
      await expect(stranger.get('custom_api')).rejects.toThrow(
        /Cannot decrypt the credential "custom_api" \(key "p-/,
      );
    });

    it('rotates keys: old rows keep reading, reencrypt moves them to the current key', async () => {
      const table = `creds_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const before = store(table, { keys: { c1: C1 }, currentKeyId: 'c1' });
      await before.put({ name: 'wiki', type: 'api_key', token: 'wiki-token' });
      await before.put({ name: 'notes', type: 'api_key', token: 'notes-token' }, { tenant: 't' });

      const rotated = store(table, { keys: { c1: C1, c2: C2 }, currentKeyId: 'c2' });
      expect((await rotated.get('wiki'))!.token).toBe('wiki-token');
      await rotated.put({ name: 'chat', type: 'bearer', token: 'chat-token' });
      const ids = async () =>
        (
          await admin.query<{ name: string; key_id: string }>(
            `SELECT name, key_id FROM ${table} ORDER BY name`,
          )
        ).rows;
      expect(await ids()).toEqual([
        { name: 'chat', key_id: 'c2' },
        { name: 'notes', key_id: 'c1' },
        { name: 'wiki', key_id: 'c1' },
      ]);
      expect(await rotated.reencrypt()).toBe(2);
      expect((await ids()).map((r) => r.key_id)).toEqual(['c2', 'c2', 'c2']);

      const onlyNew = store(table, { keys: { c2: C2 }, currentKeyId: 'c2' });
      expect((await onlyNew.get('notes', { tenant: 't' }))!.token).toBe('notes-token');
      expect(() => store(table, { keys: { c1: 'too-short' }, currentKeyId: 'c1' })).toThrow(/not 32 bytes/);
    });

    it('makes withLock exclusive across stores that share the database', async () => {
      const table = `creds_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const hosts = [store(table, 'k'), store(table, 'k')];
      const spans: Array<[number, number]> = [];
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          hosts[i % 2]!.withLock('mail', { tenant: 'x' }, async () => {
            const begin = performance.now();
            await new Promise((resolve) => setTimeout(resolve, 20));
            spans.push([begin, performance.now()]);
          }),
        ),
      );
      spans.sort((a, b) => a[0] - b[0]);
      for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1]);
      // Another credential is not blocked by this one's lock.
      await hosts[0]!.withLock('mail', { tenant: 'x' }, () =>
        hosts[1]!.withLock('calendar', { tenant: 'x' }, async () => 'both held'),
      );
    });

    describe('against a real authorization server', () => {
      const config = {
        client_id: 'pg-app',
        client_secret: 'pg-app-secret-0123456789',
        redirect_uri: 'http://127.0.0.1:8977/oauth/callback',
        scopes: ['gmail.readonly', 'offline_access'],
      };
      let as: LocalAuthorizationServer;
      beforeAll(async () => {
        as = await startAuthorizationServer({ ...config, scopes: ['gmail.readonly'] });
      });
      afterAll(async () => as?.close());

      it('refreshes an expired token exactly once for two worker processes × 25 concurrent calls', async () => {
        const table = 'toolkit_credentials';
        const key = `pg-refresh-${randomUUID()}`;
        const credentials = store(table, key);
        await authorizeMail(as, config, credentials);
        const record = (await credentials.get('mail'))!;
        await credentials.put({
          ...record,
          metadata: { ...record.metadata, expires_at: new Date(Date.now() - 1000).toISOString() },
        });
        const grants = () => as.grants.filter((g) => g === 'refresh_token').length;
        const before = grants();

        const env = { PG_URL: url, CREDENTIALS_KEY: key, CALLS: '25' };
        const callers = [
          startNodeProcess('test/fixtures/refresh-caller.ts', env),
          startNodeProcess('test/fixtures/refresh-caller.ts', env),
        ];
        const lines = await Promise.all(callers.map((caller) => caller.waitForLine(/^\[/)));
        const tokens = lines.flatMap((line) => JSON.parse(line) as string[]);

        const after = (await credentials.get('mail'))!;
        expect(grants() - before).toBe(1);
        expect(tokens).toHaveLength(50);
        expect(new Set(tokens)).toEqual(new Set([after.token]));
        expect(after.token).not.toBe(record.token);
        expect(after.refresh_token).not.toBe(record.refresh_token);
      }, 90_000);

      it('lets the callback land on another host than the one that built the URL, once', async () => {
        const table = `creds_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
        const credentials = store(table, 'k');
        const helperOn = (stateTable: string) => {
          const stateStore = new PostgresOAuthStateStore({
            connectionString: url,
            table: stateTable,
            encryptionKey: 'k',
          });
          closers.push(stateStore);
          return new DriveSuiteOAuthHelper({
            config,
            services: ['mail'],
            credentialStore: credentials,
            stateStore,
            endpoints: as.endpoints,
          });
        };
        const stateTable = `oauth_states_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
        const hostA = helperOn(stateTable);
        const hostB = helperOn(stateTable);
        const authorizationUrl = new URL(await hostA.buildAuthorizationUrl());
        // The pending request is ciphertext at rest: neither its verifier nor its redirect URI shows.
        const { rows } = await admin.query<{ entry: unknown }>(`SELECT entry FROM ${stateTable}`);
        expect(rows).toHaveLength(1);
        const stored = JSON.stringify(rows[0]!.entry);
        expect(stored).not.toContain('verifier');
        expect(stored).not.toContain(authorizationUrl.searchParams.get('redirect_uri')!);
        const callback = await as.authorize(authorizationUrl.toString());
        const [code, state] = [callback.searchParams.get('code')!, callback.searchParams.get('state')!];
        await hostB.exchangeCode(code, state, callback.searchParams);
        expect((await credentials.get('mail'))!.type).toBe('oauth2');
        await expect(hostA.exchangeCode(code, state, callback.searchParams)).rejects.toThrow(
          /state is unknown or was already used/,
        );
        expect(() => new PostgresOAuthStateStore({ connectionString: url, table: stateTable })).toThrow(
          /PostgresOAuthStateStore encrypts every pending request.*encryptionKey/,
        );
      });
    });
  },
);
