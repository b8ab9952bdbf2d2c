import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TriggerHandler } from './handler.ts';

/**
 * Node's `http.createServer` listener for a web-standard handler: the request becomes a `Request`
 * (raw body bytes untouched, as signatures need), the `Response` is written back.
 *
 * @example
 * createServer(toNodeListener(createTriggerHandler({ client, triggers }))).listen(3000);
 */
export function toNodeListener(
  handler: TriggerHandler,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request as AsyncIterable<Buffer>) chunks.push(chunk);
      const headers = new Headers();
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      }
      const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
      const answer = await handler(
        new Request(`http://${request.headers.host ?? 'localhost'}${request.url ?? '/'}`, {
          method: request.method ?? 'GET',
          headers,
          ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
        }),
      );
      response.writeHead(answer.status, Object.fromEntries(answer.headers));
      response.end(Buffer.from(await answer.arrayBuffer()));
    })().catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: (error as Error).message }));
    });
  };
}
