import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpServerSdk } from './sdk.ts';
import { SessionEventStore } from './session-event-store.ts';

const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000;

interface Session {
  server: McpServer;
  transport: StreamableHTTPServerTransport;
  /** Requests (and the standalone event stream) open now: a session with one is never idle. */
  open: number;
  lastUsed: number;
}

/** What a request could not be served with: the status and why, for the client. */
export class RequestRefusal extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/**
 * MCP sessions over Streamable HTTP, as the MCP SDK manages them: a client's `initialize` gets an MCP
 * server of its own and an `Mcp-Session-Id`, which later requests carry; so the server knows the
 * client's capabilities (URL elicitation), can send it requests and notifications while a call runs,
 * and a dropped stream resumes with `Last-Event-ID` from the session's event store. A session ends on
 * DELETE, when its transport closes, or after `idleTimeoutMs` with no request open.
 */
export class McpHttpSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #sweep: NodeJS.Timeout;
  readonly #sdk: McpServerSdk;
  readonly #create: () => McpServer;
  readonly #idleTimeoutMs: number;

  constructor(sdk: McpServerSdk, create: () => McpServer, idleTimeoutMs = DEFAULT_IDLE_TIMEOUT_MS) {
    this.#sdk = sdk;
    this.#create = create;
    this.#idleTimeoutMs = idleTimeoutMs;
    this.#sweep = setInterval(() => this.#closeIdle(), Math.min(idleTimeoutMs / 2, 60_000));
    this.#sweep.unref();
  }

  /** Serves one request of `/mcp`: `body` is the parsed JSON of a POST. */
  async handle(request: IncomingMessage, response: ServerResponse, body: unknown): Promise<void> {
    const id = request.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = this.#sessions.get(id);
      if (!session) {
        throw new RequestRefusal(
          404,
          `No session ${id}: it ended or timed out. Send initialize to open a new one.`,
        );
      }
      return this.#serve(session, request, response, body);
    }
    if (request.method !== 'POST' || !this.#sdk.isInitializeRequest(body)) {
      throw new RequestRefusal(
        400,
        'No session: open one with an initialize request (POST), then send its Mcp-Session-Id header.',
      );
    }
    const server = this.#create();
    const session: Session = {
      server,
      transport: new this.#sdk.StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new SessionEventStore(),
        onsessioninitialized: (sessionId) => void this.#sessions.set(sessionId, session),
        onsessionclosed: (sessionId) => this.#end(sessionId),
      }),
      open: 0,
      lastUsed: Date.now(),
    };
    session.transport.onclose = () => {
      if (session.transport.sessionId) void this.#end(session.transport.sessionId);
    };
    await server.connect(session.transport);
    return this.#serve(session, request, response, body);
  }

  /** Ends every session (the runs they started go on in Temporal). */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    await Promise.all([...this.#sessions.keys()].map((id) => this.#end(id)));
  }

  async #serve(session: Session, request: IncomingMessage, response: ServerResponse, body: unknown) {
    session.open += 1;
    session.lastUsed = Date.now();
    response.once('close', () => {
      session.open -= 1;
      session.lastUsed = Date.now();
    });
    await session.transport.handleRequest(request, response, body);
  }

  async #end(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  }

  #closeIdle(): void {
    const before = Date.now() - this.#idleTimeoutMs;
    for (const [id, session] of this.#sessions) {
      if (session.open === 0 && session.lastUsed < before) void this.#end(id);
    }
  }
}
