import type { CodecRequest } from './codec-server.ts';
import { ConfigurationError } from '../errors.ts';

/** Which Temporal UI may use the codec server, and for which namespaces. */
export interface UiOriginAuthorizationOptions {
  /** The UI's origins, e.g. `['http://localhost:8233']` (scheme, host and port, as the browser sends them). */
  origins: string[];
  /** The namespaces whose payloads the UI may decode and encode, e.g. `['default']`. */
  namespaces: string[];
}

/**
 * An `authorize` check for a Temporal UI that sends no credentials: a local UI over `http://`, which
 * sends only its `Origin` and the `X-Namespace` it shows (the UI passes an access token only to an
 * `https://` codec endpoint, and only when it has logins). A request is allowed when it comes from one
 * of `origins` for one of `namespaces`.
 *
 * A browser sets `Origin` itself and no page can forge it, but a program on the same machine can:
 * bind the codec server to loopback (`listen(port, '127.0.0.1')`) so only this machine reaches it.
 * For a shared UI, use an `https://` codec endpoint and check the UI's access token instead.
 *
 * @example
 * createCodecServer({
 *   keys,
 *   allowedOrigins: ['http://localhost:8233'],
 *   authorize: authorizeUiOrigin({ origins: ['http://localhost:8233'], namespaces: ['default'] }),
 * }).listen(8888, '127.0.0.1');
 */
export function authorizeUiOrigin(options: UiOriginAuthorizationOptions): (request: CodecRequest) => boolean {
  const origins = new Set(options.origins.map((origin) => origin.replace(/\/+$/, '')));
  const namespaces = new Set(options.namespaces);
  if (origins.size === 0 || namespaces.size === 0) {
    throw new ConfigurationError(
      'authorizeUiOrigin needs at least one origin and one namespace, e.g. ' +
        "{ origins: ['http://localhost:8233'], namespaces: ['default'] }.",
    );
  }
  return ({ origin, namespace }) =>
    origin !== undefined && origins.has(origin) && namespace !== undefined && namespaces.has(namespace);
}
