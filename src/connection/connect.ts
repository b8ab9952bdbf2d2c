import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { ConfigurationError } from '../errors.ts';
import { describeConnection, type ResolvedTemporalConnection } from './temporal-options.ts';

/** A worker's connection (`@temporalio/worker`) with the resolved settings. */
export async function connectWorkerConnection(
  resolved: ResolvedTemporalConnection,
): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect(connectionOptions(resolved));
  } catch (error) {
    throw connectionError(resolved, error);
  }
}

/** A client's connection (`@temporalio/client`) with the resolved settings. */
export async function connectClientConnection(resolved: ResolvedTemporalConnection): Promise<Connection> {
  try {
    return await Connection.connect(connectionOptions(resolved));
  } catch (error) {
    throw connectionError(resolved, error);
  }
}

function connectionOptions(resolved: ResolvedTemporalConnection) {
  return {
    address: resolved.address,
    ...(resolved.tls === undefined ? {} : { tls: resolved.tls }),
    ...(resolved.apiKey ? { apiKey: resolved.apiKey } : {}),
    ...(resolved.metadata ? { metadata: resolved.metadata } : {}),
  };
}

/**
 * Names what was tried (address, namespace, profile) and what to check, without the API key: the
 * underlying error's text is scrubbed of it and the error is not chained (its options carry the key).
 */
export function connectionError(resolved: ResolvedTemporalConnection, error: unknown): ConfigurationError {
  const reasons: string[] = [];
  let e: unknown = error;
  while (reasons.length < 4 && e !== undefined) {
    const text = e instanceof Error ? e.message : typeof e === 'string' ? e : JSON.stringify(e);
    if (!reasons.some((r) => r.includes(text))) reasons.push(text.replace(/\.$/, ''));
    e = e instanceof Error ? e.cause : undefined;
  }
  let reason = reasons.join(': ');
  if (resolved.apiKey) reason = reason.split(resolved.apiKey).join('[REDACTED]');
  const refused = /unauthenticated|unauthori[sz]ed|permission.denied|api.key/i.test(reason);
  const source = resolved.profile
    ? `the api_key of profile "${resolved.profile}" in temporal.toml, TEMPORAL_API_KEY, or the apiKey option`
    : 'TEMPORAL_API_KEY or the apiKey option';
  const hint = refused
    ? resolved.apiKey
      ? `The server refused the credentials: check ${source}.`
      : 'The server wants credentials: give an API key (apiKey / TEMPORAL_API_KEY) or a client certificate (tls).'
    : 'Check the address, that the server is up, and the TLS settings (tls / TEMPORAL_TLS_*).';
  return new ConfigurationError(`Could not connect to ${describeConnection(resolved)}: ${reason}. ${hint}`);
}
