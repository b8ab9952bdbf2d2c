import { createServer, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';

/** A real HTTP server on 127.0.0.1 (any free port) that answers with a fetch-style handler. */
export async function serveFetch(
  handler: (request: Request) => Promise<Response> | Response,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const response = await handler(toRequest(req));
        res.writeHead(response.status, Object.fromEntries(response.headers));
        if (!response.body) return res.end();
        const body = Readable.fromWeb(response.body);
        res.once('close', () => body.destroy());
        body.pipe(res);
      } catch (error) {
        res.writeHead(500).end(String(error));
      }
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function toRequest(req: IncomingMessage): Request {
  const url = `http://${req.headers.host ?? '127.0.0.1'}${req.url ?? '/'}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(url, {
    method: req.method ?? 'GET',
    headers,
    ...(hasBody ? { body: Readable.toWeb(req), duplex: 'half' } : {}),
  });
}
