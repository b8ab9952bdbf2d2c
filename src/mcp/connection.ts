import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { isStdioServer, type McpServerConfig } from './options.ts';
import { loadMcpClientSdk, type McpClientSdk } from './sdk.ts';

const STDERR_TAIL_CHARS = 2_000;
const CONNECT_TIMEOUT_MS = 30_000;
const CLIENT_INFO = { name: 'toolkit-agent', version: '0.1.0' };

/**
 * One worker's connection to one MCP server (SDK `Client`): a child process for a stdio server,
 * started again on the next use after it dies; a reused session for a Streamable HTTP server. Its
 * tool list is cached until the server says `notifications/tools/list_changed` or the connection is
 * made again.
 */
export class McpConnection {
  readonly server: string;
  readonly config: McpServerConfig;
  #client: Promise<Client> | undefined;
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
  client(): Promise<Client> {
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
  tools(options?: RequestOptions): Promise<Tool[]> {
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

  async #listTools(options?: RequestOptions): Promise<Tool[]> {
    const client = await this.client();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, options);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  async #connect(): Promise<Client> {
    const sdk = await loadMcpClientSdk();
    const client = new sdk.Client(CLIENT_INFO);
    const transport = isStdioServer(this.config)
      ? this.#stdioTransport(sdk, this.config)
      : new sdk.StreamableHTTPClientTransport(new URL(this.config.url), {
          requestInit: { headers: this.config.headers ?? {} },
          fetch: (url, init) => {
            const headers = new Headers(init?.headers);
            for (const [name, value] of Object.entries(this.#auth)) headers.set(name, value);
            return fetch(url, { ...init, headers });
          },
        });
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      this.#tools = undefined;
    });
    const mine = Promise.resolve(client);
    client.onclose = () => {
      // The process died or the session ended: the next use connects again and lists again.
      if (this.#client === mine) {
        this.#client = undefined;
        this.#tools = undefined;
      }
    };
    await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
    this.#client = mine;
    return client;
  }

  #stdioTransport(
    sdk: McpClientSdk,
    config: Extract<McpServerConfig, { command: string }>,
  ): StdioClientTransport {
    this.#stderrTail = '';
    const transport = new sdk.StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.#stderrTail = (this.#stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    return transport;
  }
}
