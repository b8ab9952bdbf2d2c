import { McpConnection } from './connection.ts';
import { isStdioServer, type McpServerConfig } from './options.ts';

/**
 * A worker's MCP connections: one per server entry (one child process per stdio server, shared by
 * agents that configure the same server), and for an HTTP server with a `credentialKey` one per agent
 * and tenant, since each carries that tenant's token from that agent's credential store. The
 * worker closes the pool when it stops, which ends the sessions and stops the processes.
 */
export class McpConnectionPool {
  readonly #connections = new Map<string, McpConnection>();

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
    return connection;
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
    const all = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(all.map((connection) => connection.close()));
  }
}
