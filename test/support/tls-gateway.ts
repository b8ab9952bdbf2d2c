import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import {
  connect,
  constants,
  createSecureServer,
  type ClientHttp2Session,
  type Http2Session,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface TestCertificates {
  caPath: string;
  cert: string;
  key: string;
}

/**
 * A CA and a server certificate for `localhost` / 127.0.0.1 signed by it, made with the `openssl` CLI
 * (EC P-256, one day): the CA a client must trust, the certificate and key a server presents.
 */
export async function makeCertificates(dir: string): Promise<TestCertificates> {
  const at = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await run('openssl', [
    'req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '1',
    '-subj', '/CN=toolkit-agent test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]); // prettier-ignore
  await run('openssl', [
    'req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=localhost',
  ]); // prettier-ignore
  await writeFile(
    at('server.ext'),
    'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' +
      'subjectAltName=DNS:localhost,IP:127.0.0.1\n',
  );
  await run('openssl', [
    'x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'),
    '-CAcreateserial', '-out', at('server.pem'), '-days', '1', '-extfile', at('server.ext'),
  ]); // prettier-ignore
  return {
    caPath: at('ca.pem'),
    cert: await readFile(at('server.pem'), 'utf8'),
    key: await readFile(at('server.key'), 'utf8'),
  };
}

export interface TlsGateway {
  /** `127.0.0.1:<port>`. */
  address: string;
  /** gRPC calls forwarded / refused for a missing or wrong key. */
  counts: { forwarded: number; refused: number };
  close(): Promise<void>;
}

/**
 * A gRPC gateway like Temporal Cloud's front door: HTTP/2 over TLS, every call must carry
 * `authorization: Bearer <apiKey>` (else gRPC status 16 UNAUTHENTICATED), and calls are forwarded
 * over plain HTTP/2 to `upstream` (the dev server) without the key.
 */
export async function startTlsGateway(opts: {
  upstream: string;
  apiKey: string;
  certificates: TestCertificates;
}): Promise<TlsGateway> {
  const counts = { forwarded: 0, refused: 0 };
  let upstream: ClientHttp2Session | undefined;
  const session = () => {
    if (!upstream || upstream.closed || upstream.destroyed) {
      upstream = connect(`http://${opts.upstream}`);
      upstream.on('error', () => undefined);
    }
    return upstream;
  };
  const server = createSecureServer({ cert: opts.certificates.cert, key: opts.certificates.key });
  const sessions = new Set<Http2Session>();
  server.on('session', (s: Http2Session) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  server.on('stream', (stream, headers) => {
    stream.on('error', () => undefined);
    if (headers.authorization !== `Bearer ${opts.apiKey}`) {
      counts.refused += 1;
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': '16',
          'grpc-message': 'Request unauthorized: invalid API key',
        },
        { endStream: true },
      );
      return;
    }
    counts.forwarded += 1;
    const request = session().request(forwardedHeaders(headers));
    request.on('error', () => stream.close(constants.NGHTTP2_INTERNAL_ERROR));
    stream.on('close', () => {
      if (!request.closed) request.close(constants.NGHTTP2_CANCEL);
    });
    stream.pipe(request);
    let trailers: OutgoingHttpHeaders = { 'grpc-status': '0' };
    request.on('trailers', (received: IncomingHttpHeaders) => {
      trailers = withoutPseudo(received);
    });
    request.on('response', (response) => {
      if (stream.closed) return;
      if (response['grpc-status'] !== undefined) {
        stream.respond(withoutPseudo(response, true), { endStream: true }); // trailers-only answer
        request.resume();
        return;
      }
      stream.respond(withoutPseudo(response, true), { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers(trailers));
      request.pipe(stream);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    counts,
    async close() {
      upstream?.destroy();
      server.close();
      for (const s of sessions) s.destroy();
    },
  };

  function forwardedHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
    const out: OutgoingHttpHeaders = { ':method': headers[':method'], ':path': headers[':path'] };
    for (const [name, value] of Object.entries(headers)) {
      if (!name.startsWith(':') && name !== 'authorization') out[name] = value;
    }
    return out;
  }
}

function withoutPseudo(headers: IncomingHttpHeaders, keepStatus = false): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(':') || (keepStatus && name === ':status')) out[name] = value;
  }
  return out;
}
