import { log } from '@temporalio/activity';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolSchema } from '../common/messages.ts';
import type { CredentialStore } from '../credentials/types.ts';
import { secretValuesOf } from '../credentials/types.ts';
import { CredentialError } from '../errors.ts';
import { canRefresh, refreshCredential } from '../oauth/refresh.ts';
import { SecretSet } from '../redaction.ts';
import type { McpConnection } from './connection.ts';
import { mcpAuthHeaders } from './credential.ts';
import { toMcpFailure } from './errors.ts';
import { isStdioServer, type McpServerConfig, type McpServers } from './options.ts';
import type { McpConnectionPool } from './pool.ts';
import { exposedToolNames } from './tool-names.ts';

/** One MCP tool as an agent offers it. */
export interface McpToolEntry {
  /** The name the model sees: `<server>_<tool>`. */
  name: string;
  server: string;
  /** The tool as the server lists it (name, description, input schema, annotations). */
  tool: Tool;
  /** The function-calling schema: the server's description and JSON Schema, unchanged. */
  schema: ToolSchema;
  /** Offered only in runs whose skills name the server. */
  skillsOnly: boolean;
  /** Read-only or idempotent by its annotations: a call whose answer was lost may be repeated. */
  retrySafe: boolean;
}

/** Who is asking: the run's tenant (whose credential applies) and where secrets are collected. */
export interface McpAsker {
  tenant?: string;
  secrets?: SecretSet;
  signal?: AbortSignal;
}

const LIST_TIMEOUT_MS = 60_000;

/**
 * The MCP servers of one agent on one worker: lists their tools (inside activities only), names
 * them for the model, and hands out the pooled connections that calls go through.
 */
export class McpAgentTools {
  readonly agent: string;
  readonly servers: ReadonlyMap<string, McpServerConfig>;
  /** Calls wait at most this long for an answer (the agent's tool activity timeout). */
  readonly callTimeoutMs: number;
  readonly credentialStore: CredentialStore | undefined;
  readonly #pool: McpConnectionPool;
  readonly #isTaken: (name: string) => boolean;
  /** Named entries per listed tool array: the same array (an unchanged listing) gives the same entries. */
  readonly #named = new WeakMap<Tool[], McpToolEntry[]>();
  /** Every name handed out so far, for quick checks that need no listing. */
  readonly #known = new Map<string, McpToolEntry>();

  constructor(opts: {
    agent: string;
    servers: McpServers;
    pool: McpConnectionPool;
    credentialStore: CredentialStore | undefined;
    callTimeoutMs: number;
    /** Names the agent's own tools use: an MCP tool never takes one of them. */
    isTaken: (name: string) => boolean;
  }) {
    this.agent = opts.agent;
    this.servers = new Map(Object.entries(opts.servers));
    this.#pool = opts.pool;
    this.credentialStore = opts.credentialStore;
    this.callTimeoutMs = opts.callTimeoutMs;
    this.#isTaken = opts.isTaken;
  }

  /** The server a model-facing name belongs to (server names have no `_`), if it is one of ours. */
  serverOf(name: string): string | undefined {
    const server = name.slice(0, name.indexOf('_'));
    return name.includes('_') && this.servers.has(server) ? server : undefined;
  }

  /** Whether `name` is an MCP tool this worker has listed. */
  has(name: string): boolean {
    return this.#known.has(name);
  }

  /**
   * The connection to `server` for the asker's tenant, with its credential headers set when the entry
   * has a `credentialKey` (read here, inside the activity).
   */
  async connection(server: string, asker: McpAsker): Promise<McpConnection> {
    const config = this.servers.get(server);
    if (!config) throw new Error(`Agent "${this.agent}" has no MCP server "${server}".`);
    const connection = this.#pool.get(server, config, { agent: this.agent, tenant: asker.tenant });
    if (!isStdioServer(config) && config.credentialKey) {
      const auth = await mcpAuthHeaders(server, config.credentialKey, this.credentialStore, {
        tenant: asker.tenant,
        secrets: asker.secrets ?? new SecretSet(),
        ...(asker.signal ? { signal: asker.signal } : {}),
      });
      connection.setAuthHeaders(auth.headers, auth.record.token);
    }
    return connection;
  }

  /**
   * The tools of one server, named (cached until the server announces a change). A 401 to an OAuth
   * token that can be refreshed refreshes it once (single-flight, like the connectors) and lists once
   * more; a second 401 says to authorize again.
   */
  async serverTools(server: string, asker: McpAsker): Promise<McpToolEntry[]> {
    try {
      return await this.#serverTools(server, asker);
    } catch (error) {
      if (!(error instanceof CredentialError && error.rejected)) throw error;
      if (!(await this.#refreshRejected(server, asker))) throw error;
    }
    try {
      return await this.#serverTools(server, asker);
    } catch (again) {
      if (again instanceof CredentialError && again.rejected) {
        throw new CredentialError(
          `${again.message}\nIt was rejected again right after a refresh: authorize again.`,
          { cause: again },
        );
      }
      throw again;
    }
  }

  /**
   * After a 401 to `server`: refreshes its OAuth record (when it can be refreshed) as the token the
   * connection sent was rejected. Answers whether a repeat can use a new token.
   */
  async #refreshRejected(server: string, asker: McpAsker): Promise<boolean> {
    const config = this.servers.get(server);
    const store = this.credentialStore;
    if (!config || isStdioServer(config) || !config.credentialKey || !store) return false;
    const connection = this.#pool.get(server, config, { agent: this.agent, tenant: asker.tenant });
    const record = await store.get(config.credentialKey, { tenant: asker.tenant });
    if (!record || !canRefresh(record)) return false;
    const refreshed = await refreshCredential(store, config.credentialKey, asker.tenant, Date.now, {
      rejectedToken: connection.authToken ?? record.token,
    });
    for (const value of secretValuesOf(refreshed)) asker.secrets?.add(value);
    return true;
  }

  async #serverTools(server: string, asker: McpAsker): Promise<McpToolEntry[]> {
    const config = this.servers.get(server)!;
    const connection = await this.connection(server, asker);
    let tools: Tool[];
    try {
      tools = await connection.tools({
        timeout: LIST_TIMEOUT_MS,
        ...(asker.signal ? { signal: asker.signal } : {}),
      });
    } catch (error) {
      throw toMcpFailure(error, {
        connection,
        action: 'listing tools',
        retrySafe: true,
        ...(!isStdioServer(config) && config.credentialKey ? { credentialKey: config.credentialKey } : {}),
      });
    }
    let entries = this.#named.get(tools);
    if (!entries) {
      const names = exposedToolNames(
        tools.map((tool) => ({ server, tool: tool.name })),
        this.#isTaken,
      );
      const byTool = new Map(tools.map((tool) => [tool.name, tool]));
      entries = [...names].map(([name, ref]) => toEntry(name, server, byTool.get(ref.tool)!, config));
      this.#named.set(tools, entries);
      for (const entry of entries) this.#known.set(entry.name, entry);
    }
    return entries;
  }

  /**
   * The tools of several servers. A server that cannot be listed is left out and named in `failed`
   * (with the reason, redacted), so one server that is down does not stop the agent.
   */
  async list(
    servers: readonly string[],
    asker: McpAsker,
  ): Promise<{ entries: McpToolEntry[]; failed: Map<string, string> }> {
    const secrets = asker.secrets ?? new SecretSet();
    const failed = new Map<string, string>();
    const lists = await Promise.all(
      servers.map((server) =>
        this.serverTools(server, { ...asker, secrets }).catch((error: unknown) => {
          const reason = secrets.redact(error instanceof Error ? error.message : String(error));
          failed.set(server, reason);
          warn(
            `Agent "${this.agent}": the tools of MCP server "${server}" are left out of this run: ${reason}`,
          );
          return [];
        }),
      ),
    );
    return { entries: lists.flat(), failed };
  }

  /** The entry for a model-facing name, listing its server first when needed (a fresh worker). */
  async lookup(name: string, asker: McpAsker): Promise<McpToolEntry | undefined> {
    const server = this.serverOf(name);
    if (!server) return undefined;
    return (await this.serverTools(server, asker)).find((entry) => entry.name === name);
  }

  /** The servers whose tools every run is offered (those without `skillsOnly`). */
  get everyRunServers(): string[] {
    return [...this.servers].filter(([, config]) => !config.skillsOnly).map(([name]) => name);
  }
}

function toEntry(name: string, server: string, tool: Tool, config: McpServerConfig): McpToolEntry {
  const annotations = tool.annotations ?? {};
  return {
    name,
    server,
    tool,
    schema: {
      type: 'function',
      function: {
        name,
        description: tool.description ?? tool.title ?? tool.name,
        parameters: tool.inputSchema,
      },
    },
    skillsOnly: config.skillsOnly === true,
    retrySafe: annotations.readOnlyHint === true || annotations.idempotentHint === true,
  };
}

/** Logs through the activity's logger inside an activity, and not at all outside one. */
function warn(message: string): void {
  try {
    log.warn(message);
  } catch {
    // Not in an activity (a direct call in a test): nothing to log to.
  }
}
