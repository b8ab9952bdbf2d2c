import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/**
 * A web-standard handler as a Node `http.createServer` listener, streaming both ways (a chat's
 * answer reaches the page as it is written); the response stops being read when the page goes away.
 */
export function toNodeListener(
  handler: (request: Request) => Promise<Response>,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    void (async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
      // `duplex: 'half'` (a streamed body) is Node's; the DOM's RequestInit does not name it.
      const init: RequestInit & { duplex?: 'half' } = {
        method: request.method ?? 'GET',
        headers,
        ...(hasBody ? { body: Readable.toWeb(request), duplex: 'half' } : {}),
      };
      const answer = await handler(
        new Request(`http://${request.headers.host ?? 'localhost'}${request.url ?? '/'}`, init),
      );
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (!answer.body) return void response.end();
      const body = Readable.fromWeb(answer.body);
      response.once('close', () => body.destroy());
      body.pipe(response);
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: (error as Error).message }));
    });
  };
}
