import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { connectMcpSession, type McpClientSession, type McpRequestOptions } from './client-session.ts';
import type { McpServerConfig } from './options.ts';

const STDERR_TAIL_CHARS = 2_000;

/**
 * One worker's connection to one MCP server (an SDK `Client`): a child process for a stdio server,
 * started again on the next use after it dies; for a Streamable HTTP server, a reused session
 * (2025-11-25) or stateless requests (2026-07-28, negotiated when the 2.x client is installed). Its
 * tool list is cached until the server says `notifications/tools/list_changed` or the connection is
 * made again.
 */
export class McpConnection {
  readonly server: string;
  readonly config: McpServerConfig;
  #client: Promise<McpClientSession> | undefined;
  #tools: Promise<Tool[]> | undefined;
  #auth: Record<string, string> = {};
  #authToken: string | undefined;
  #stderrTail = '';
  #closed = false;
  #busy = 0;
  #lastUsed = Date.now();

  constructor(server: string, config: McpServerConfig) {
    this.server = server;
    this.config = config;
  }

  /**
   * Headers with the run's credential, sent from the next request on (HTTP servers with
   * `credentialKey`), and the token they carry (refreshed as the rejected one after a 401).
   */
  setAuthHeaders(headers: Record<string, string>, token?: string): void {
    this.#auth = headers;
    this.#authToken = token;
  }

  /** The token the credential headers carry, if any. */
  get authToken(): string | undefined {
    return this.#authToken;
  }

  /** Notes a use now (the pool closes connections unused for its idle timeout). */
  touch(): void {
    this.#lastUsed = Date.now();
  }

  /** When it was last used (ms since the epoch). */
  get lastUsed(): number {
    return this.#lastUsed;
  }

  /** Whether a request is in flight: such a connection is never closed for being idle. */
  get busy(): boolean {
    return this.#busy > 0;
  }

  /** Runs `work` as a use of the connection: it counts as busy until `work` settles. */
  async use<T>(work: () => Promise<T>): Promise<T> {
    this.#busy += 1;
    this.touch();
    try {
      return await work();
    } finally {
      this.#busy -= 1;
      this.touch();
    }
  }

  /** The last lines a stdio server wrote to stderr: the reason it would not start or died, usually. */
  get stderrTail(): string {
    return this.#stderrTail.trim();
  }

  /** The connected client, connecting (or starting the process) first when there is none. */
  client(): Promise<McpClientSession> {
    if (this.#closed)
      return Promise.reject(new Error(`The connection to MCP server "${this.server}" was closed.`));
    if (!this.#client) {
      const connecting = this.#connect();
      this.#client = connecting;
      connecting.catch(() => {
        if (this.#client === connecting) this.#client = undefined;
      });
    }
    return this.#client;
  }

  /** Every tool the server lists (all pages), cached until it announces a change. */
  tools(options?: McpRequestOptions): Promise<Tool[]> {
    if (!this.#tools) {
      const listing = this.use(() => this.#listTools(options));
      this.#tools = listing;
      listing.catch(() => {
        if (this.#tools === listing) this.#tools = undefined;
      });
    }
    return this.#tools;
  }

  /** Forgets the tool list: the next use lists again. */
  invalidateTools(): void {
    this.#tools = undefined;
  }

  /** Drops the connection (a session the server no longer knows); the next use connects again. */
  async reset(): Promise<void> {
    const current = this.#client;
    this.#client = undefined;
    this.#tools = undefined;
    await current?.then((client) => client.close()).catch(() => undefined);
  }

  /** Ends the session and stops a stdio server's process. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.reset();
  }

  async #listTools(options?: McpRequestOptions): Promise<Tool[]> {
    const client = await this.client();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor, options);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  async #connect(): Promise<McpClientSession> {
    this.#stderrTail = '';
    const mine: { client?: Promise<McpClientSession> } = {};
    const session = await connectMcpSession(this.config, {
      onToolsChanged: () => (this.#tools = undefined),
      onClose: () => {
        // The process died or the session ended: the next use connects again and lists again.
        if (mine.client && this.#client === mine.client) {
          this.#client = undefined;
          this.#tools = undefined;
        }
      },
      authHeaders: () => this.#auth,
      onStderr: (chunk) => {
        this.#stderrTail = (this.#stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
      },
    });
    mine.client = Promise.resolve(session);
    this.#client = mine.client;
    return session;
  }
}
