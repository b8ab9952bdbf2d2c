import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionError } from '../../src/connection/connect.ts';
import { describeConnection, resolveTemporalConnection } from '../../src/connection/temporal-options.ts';
import { ConfigurationError } from '../../src/errors.ts';

describe('resolveTemporalConnection', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'envconfig-'));
    file = join(dir, 'temporal.toml');
    await writeFile(join(dir, 'ca.pem'), 'CA PEM');
    await writeFile(
      file,
      `[profile.default]\naddress = "default.example:7233"\n` +
        `[profile.cloud]\naddress = "ns.acct.tmprl.cloud:7233"\nnamespace = "ns.acct"\napi_key = "cloud-key"\n` +
        `[profile.mtls]\naddress = "temporal.internal:7233"\nnamespace = "prod"\n` +
        `[profile.mtls.tls]\nserver_ca_cert_path = "${join(dir, 'ca.pem')}"\nserver_name = "temporal"\n` +
        `client_cert_data = "CERT"\nclient_key_data = "KEY"\n`,
    );
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('defaults to localhost:7233 and namespace default without file or environment', () => {
    expect(resolveTemporalConnection({}, {})).toEqual({ address: 'localhost:7233', namespace: 'default' });
  });

  it('reads the default profile, then TEMPORAL_* variables, then the options, which win', () => {
    expect(resolveTemporalConnection({ configFile: file }, {}).address).toBe('default.example:7233');
    const fromEnv = resolveTemporalConnection(
      { configFile: file },
      { TEMPORAL_ADDRESS: 'env.example:7233', TEMPORAL_NAMESPACE: 'envns' },
    );
    expect(fromEnv).toMatchObject({ address: 'env.example:7233', namespace: 'envns' });
    const fromOptions = resolveTemporalConnection(
      { configFile: file, address: 'opt.example:7233' },
      { TEMPORAL_ADDRESS: 'env.example:7233' },
    );
    expect(fromOptions.address).toBe('opt.example:7233');
  });

  it('turns TLS on for an API key, from a profile named in TEMPORAL_PROFILE', () => {
    const cloud = resolveTemporalConnection({}, { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'cloud' });
    expect(cloud).toEqual({
      address: 'ns.acct.tmprl.cloud:7233',
      namespace: 'ns.acct',
      apiKey: 'cloud-key',
      tls: true,
      profile: 'cloud',
    });
    expect(describeConnection(cloud)).toBe(
      'Temporal at ns.acct.tmprl.cloud:7233 (namespace "ns.acct", profile "cloud", with an API key, TLS)',
    );
    expect(resolveTemporalConnection({ apiKey: 'k', tls: false }, {}).tls).toBe(false);
  });

  it('reads mTLS settings from the profile, and from the option object with files', () => {
    const mtls = resolveTemporalConnection({ profile: 'mtls', configFile: file }, {});
    expect(asText(mtls.tls)).toEqual({
      serverNameOverride: 'temporal',
      serverRootCACertificate: 'CA PEM',
      clientCertPair: { crt: 'CERT', key: 'KEY' },
    });
    const fromOption = resolveTemporalConnection(
      {
        tls: { serverRootCACertPath: join(dir, 'ca.pem'), clientCert: 'C', clientKey: 'K', serverName: 'x' },
      },
      {},
    );
    expect(asText(fromOption.tls)).toEqual({
      serverNameOverride: 'x',
      serverRootCACertificate: 'CA PEM',
      clientCertPair: { crt: 'C', key: 'K' },
    });
  });

  it('refuses half an mTLS pair, a missing TLS file and an unknown profile, saying what to fix', () => {
    expect(() => resolveTemporalConnection({ tls: { clientCert: 'C' } }, {})).toThrow(/needs both/);
    expect(() =>
      resolveTemporalConnection({ tls: { serverRootCACertPath: join(dir, 'nope.pem') } }, {}),
    ).toThrow(/Cannot read the TLS file .*nope\.pem \(serverRootCACertPath/);
    expect(() => resolveTemporalConnection({ profile: 'nope', configFile: file }, {})).toThrow(
      ConfigurationError,
    );
    expect(() => resolveTemporalConnection({ profile: 'nope', configFile: file }, {})).toThrow(
      /profile "nope".*\[profile\.nope\]/,
    );
  });

  it('keeps the API key out of a connection error even when the cause quotes it', () => {
    const resolved = resolveTemporalConnection({ configFile: file, profile: 'cloud' }, {});
    const error = connectionError(resolved, new Error('16 UNAUTHENTICATED: bad key cloud-key'));
    expect(error.message).not.toContain('cloud-key');
    expect(error.message).toContain('[REDACTED]');
    expect(error.message).toContain('check the api_key of profile "cloud"');
    expect(error.cause).toBeUndefined();
  });
});

/** TLS settings with every byte string as text, to compare. */
function asText(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) =>
      v instanceof Uint8Array || (v as { type?: string })?.type === 'Buffer'
        ? Buffer.from((v as { data?: number[] }).data ?? (v as Uint8Array)).toString('utf8')
        : v,
    ),
  );
}
