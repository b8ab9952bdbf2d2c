import { readFileSync } from 'node:fs';
import { loadClientConfigProfile, type ClientConfigProfile } from '@temporalio/envconfig';
import type { TLSConfig } from '@temporalio/client';
import { ConfigurationError } from '../errors.ts';

/** TLS settings: a server CA and name for a private cluster, a client certificate and key for mTLS. */
export interface TemporalTlsOptions {
  /** PEM file of the client certificate (mTLS). */
  clientCertPath?: string;
  /** PEM file of the client's private key (mTLS). */
  clientKeyPath?: string;
  /** The client certificate itself, PEM. */
  clientCert?: string | Uint8Array;
  /** The client's private key itself, PEM. */
  clientKey?: string | Uint8Array;
  /** PEM file of the CA that signed the server's certificate (default: the system's trusted CAs). */
  serverRootCACertPath?: string;
  /** The server CA itself, PEM. */
  serverRootCACert?: string | Uint8Array;
  /** The name the server's certificate is checked against (default: the host of `address`). */
  serverName?: string;
}

/**
 * Where and how to reach Temporal, for `Agent`, `createAgentWorker` and `AgentClient.connect`.
 * Resolved like Temporal's own tools do (`@temporalio/envconfig`): the profile of `temporal.toml`
 * (`TEMPORAL_CONFIG_FILE`, default `~/.config/temporalio/temporal.toml`; `TEMPORAL_PROFILE` names it),
 * then `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY` and `TEMPORAL_TLS_*`, then the fields
 * given here. Defaults: `localhost:7233`, namespace `default`, no TLS (TLS on when an API key is set).
 *
 * @example
 * // Temporal Cloud with an API key
 * { address: 'my-ns.a1b2c.tmprl.cloud:7233', namespace: 'my-ns.a1b2c', apiKey: process.env.TEMPORAL_API_KEY }
 * // a profile of temporal.toml, the same one the `temporal` CLI uses
 * { profile: 'prod' }
 */
export interface TemporalConnectionOptions {
  /** A profile of `temporal.toml` (default: `TEMPORAL_PROFILE`, else `default` when the file has one). */
  profile?: string;
  /** Host and port of the frontend, e.g. `my-ns.a1b2c.tmprl.cloud:7233`. */
  address?: string;
  namespace?: string;
  /** An API key (Temporal Cloud); sent as `authorization: Bearer ...`, never logged. Turns TLS on. */
  apiKey?: string;
  /** `true` for TLS with the system's CAs, an object for a private CA or mTLS, `false` to force it off. */
  tls?: boolean | TemporalTlsOptions;
  /** The `temporal.toml` to read instead of `TEMPORAL_CONFIG_FILE` or the default location. */
  configFile?: string;
}

/** Settings ready for `NativeConnection.connect` and `Connection.connect`. */
export interface ResolvedTemporalConnection {
  address: string;
  namespace: string;
  apiKey?: string;
  tls?: TLSConfig | boolean;
  /** gRPC headers from the profile (`grpc_meta`). */
  metadata?: Record<string, string>;
  /** The profile the settings came from, when one was named. */
  profile?: string;
}

const DEFAULT_ADDRESS = 'localhost:7233';

/**
 * Resolves connection settings from `temporal.toml`, the environment and `options` (which win).
 * Throws {@link ConfigurationError} for an unknown profile or an unreadable TLS file; the message never
 * contains the API key.
 */
export function resolveTemporalConnection(
  options: TemporalConnectionOptions = {},
  env: Record<string, string | undefined> = process.env,
): ResolvedTemporalConnection {
  const profileName = options.profile ?? env.TEMPORAL_PROFILE;
  let profile: ClientConfigProfile;
  try {
    profile = loadClientConfigProfile({
      ...(options.profile === undefined ? {} : { profile: options.profile }),
      ...(options.configFile === undefined ? {} : { configSource: { path: options.configFile } }),
      overrideEnvVars: definedOnly(env),
    });
  } catch (error) {
    const file = options.configFile ?? env.TEMPORAL_CONFIG_FILE ?? '~/.config/temporalio/temporal.toml';
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigurationError(
      `Cannot load the Temporal profile "${profileName ?? 'default'}" from ${file}: ${reason}. ` +
        `Define [profile.${profileName ?? 'default'}] there, point TEMPORAL_CONFIG_FILE at the right file, or pass address/namespace directly.`,
      { cause: error },
    );
  }
  const apiKey = options.apiKey ?? profile.apiKey;
  const where = `the Temporal profile "${profileName ?? 'default'}"`;
  const tls = resolveTls(options.tls, profile, apiKey !== undefined, where);
  return {
    address: options.address ?? profile.address ?? DEFAULT_ADDRESS,
    namespace: options.namespace ?? profile.namespace ?? 'default',
    ...(apiKey === undefined || apiKey === '' ? {} : { apiKey }),
    ...(tls === undefined ? {} : { tls }),
    ...(profile.grpcMeta && Object.keys(profile.grpcMeta).length ? { metadata: profile.grpcMeta } : {}),
    ...(profileName === undefined ? {} : { profile: profileName }),
  };
}

/** A one-line description for messages: address, namespace, profile, whether a key is used (never the key). */
export function describeConnection(resolved: ResolvedTemporalConnection): string {
  const parts = [`namespace "${resolved.namespace}"`];
  if (resolved.profile) parts.push(`profile "${resolved.profile}"`);
  if (resolved.apiKey) parts.push('with an API key');
  if (resolved.tls) parts.push('TLS');
  return `Temporal at ${resolved.address} (${parts.join(', ')})`;
}

function resolveTls(
  option: TemporalConnectionOptions['tls'],
  profile: ClientConfigProfile,
  hasApiKey: boolean,
  where: string,
): TLSConfig | boolean | undefined {
  if (option === false) return false;
  if (typeof option === 'object') {
    return tlsConfig(
      {
        clientCert: option.clientCert ?? fileOf(option.clientCertPath, 'clientCertPath', where),
        clientKey: option.clientKey ?? fileOf(option.clientKeyPath, 'clientKeyPath', where),
        serverCA:
          option.serverRootCACert ?? fileOf(option.serverRootCACertPath, 'serverRootCACertPath', where),
        serverName: option.serverName,
      },
      where,
    );
  }
  const fromProfile = profile.tls;
  if (fromProfile && !fromProfile.disabled) {
    return tlsConfig(
      {
        clientCert: sourceOf(fromProfile.clientCert, 'client_cert', where),
        clientKey: sourceOf(fromProfile.clientKey, 'client_key', where),
        serverCA: sourceOf(fromProfile.serverCACert, 'server_ca_cert', where),
        serverName: fromProfile.serverName,
      },
      where,
    );
  }
  if (fromProfile?.disabled && option !== true) return false;
  if (option === true || hasApiKey) return true;
  return undefined;
}

function tlsConfig(
  parts: {
    clientCert?: string | Uint8Array | undefined;
    clientKey?: string | Uint8Array | undefined;
    serverCA?: string | Uint8Array | undefined;
    serverName?: string | undefined;
  },
  where: string,
): TLSConfig {
  if (Boolean(parts.clientCert) !== Boolean(parts.clientKey)) {
    throw new ConfigurationError(
      `TLS for ${where} has a client certificate without its key (or a key without its certificate); mTLS needs both.`,
    );
  }
  return {
    ...(parts.serverName ? { serverNameOverride: parts.serverName } : {}),
    ...(parts.serverCA ? { serverRootCACertificate: bytes(parts.serverCA) } : {}),
    ...(parts.clientCert && parts.clientKey
      ? { clientCertPair: { crt: bytes(parts.clientCert), key: bytes(parts.clientKey) } }
      : {}),
  };
}

function sourceOf(
  source: { path: string } | { data: string | Uint8Array } | undefined,
  field: string,
  where: string,
): string | Uint8Array | undefined {
  if (!source) return undefined;
  return 'path' in source ? fileOf(source.path, `${field}_path`, where) : source.data;
}

function fileOf(path: string | undefined, field: string, where: string): Uint8Array | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ConfigurationError(
      `Cannot read the TLS file ${path} (${field} of ${where}): ${(error as Error).message}.`,
      { cause: error },
    );
  }
}

function bytes(value: string | Uint8Array): Uint8Array {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
