import { McpConnection } from './connection.ts';
import { isStdioServer, type McpServerConfig } from './options.ts';
import { ConfigurationError } from '../errors.ts';

/** How long an MCP connection may sit unused before the pool closes it: 5 minutes. */
export const DEFAULT_MCP_IDLE_TIMEOUT_MS = 5 * 60_000;

export interface McpConnectionPoolOptions {
  /**
   * Close a connection (end its session, stop its stdio process) after this long without a request;
   * the next use connects again. Default {@link DEFAULT_MCP_IDLE_TIMEOUT_MS}.
   */
  idleTimeoutMs?: number;
}

/**
 * A worker's MCP connections: one per server entry (one child process per stdio server, shared by
 * agents that configure the same server), and for an HTTP server with a `credentialKey` one per agent
 * and tenant, since each carries that tenant's token from that agent's credential store. Connections
 * unused for `idleTimeoutMs` are closed (a worker serving many tenants does not keep a session per
 * tenant forever). The worker closes the pool when it stops, which ends the sessions and stops the processes.
 */
export class McpConnectionPool {
  readonly #connections = new Map<string, McpConnection>();
  readonly #idleTimeoutMs: number;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: McpConnectionPoolOptions = {}) {
    const idle = options.idleTimeoutMs ?? DEFAULT_MCP_IDLE_TIMEOUT_MS;
    if (!(idle > 0)) throw new ConfigurationError(`mcpIdleTimeoutMs must be above 0 (got ${String(idle)}).`);
    this.#idleTimeoutMs = idle;
  }

  /** The connection for `server` (made on first use; connecting happens on the first request). */
  get(server: string, config: McpServerConfig, who: { agent: string; tenant?: string }): McpConnection {
    // A connection that carries a credential belongs to one agent (its store) and one tenant.
    const perTenant = !isStdioServer(config) && config.credentialKey !== undefined;
    const key = JSON.stringify([server, config, perTenant ? [who.agent, who.tenant ?? ''] : []]);
    let connection = this.#connections.get(key);
    if (!connection) {
      connection = new McpConnection(server, config);
      this.#connections.set(key, connection);
    }
    connection.touch();
    this.#sweeper ??= setInterval(() => this.evictIdle(), Math.min(this.#idleTimeoutMs, 60_000) / 2);
    this.#sweeper.unref();
    return connection;
  }

  /** Closes the connections unused for longer than the idle timeout (none with a request in flight). */
  evictIdle(now = Date.now()): number {
    let evicted = 0;
    for (const [key, connection] of this.#connections) {
      if (connection.busy || now - connection.lastUsed < this.#idleTimeoutMs) continue;
      this.#connections.delete(key);
      void connection.close();
      evicted += 1;
    }
    if (this.#connections.size === 0) this.#stopSweeping();
    return evicted;
  }

  /** How many connections the pool holds. */
  get size(): number {
    return this.#connections.size;
  }

  /**
   * Closes the pool when `worker.run()` ends (after `shutdown()`), so a stopped worker leaves no MCP
   * server process behind. Returns the same worker.
   */
  closeWhenStopped<W extends { run(): Promise<void> }>(worker: W): W {
    const run = worker.run.bind(worker);
    worker.run = () => run().finally(() => this.close());
    return worker;
  }

  /** Closes every connection; the pool can be used again afterwards (new connections are made). */
  async close(): Promise<void> {
    this.#stopSweeping();
    const all = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(all.map((connection) => connection.close()));
  }

  #stopSweeping(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }
}
