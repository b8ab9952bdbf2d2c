import { ConfigurationError } from '../errors.ts';

/** What every MCP server entry may say, whatever its transport. */
interface McpServerCommon {
  /**
   * Offer this server's tools only in runs where a selected skill names the server in its `mcps`
   * (like a skill's tool bundle). Default: its tools are offered to every run of the agent.
   */
  skillsOnly?: boolean;
}

/** An MCP server the worker starts as a child process and talks to over stdin/stdout. */
export interface McpStdioServer extends McpServerCommon {
  command: string;
  args?: string[];
  /** Added to a small safe default environment (PATH, HOME, ...), not to the worker's whole environment. */
  env?: Record<string, string>;
  cwd?: string;
}

/** An MCP server reached over Streamable HTTP. */
export interface McpHttpServer extends McpServerCommon {
  url: string;
  /** Sent with every request. Put secrets in the credential store (`credentialKey`), not here. */
  headers?: Record<string, string>;
  /**
   * A record in the agent's credential store (per tenant) whose token is sent as
   * `Authorization: Bearer <token>`, or in the header its `metadata.header` names. Read inside the
   * activity only: it never reaches workflow history, events or logs.
   */
  credentialKey?: string;
}

/** One entry of `mcpServers`: a stdio server (`command`) or a Streamable HTTP server (`url`). */
export type McpServerConfig = McpStdioServer | McpHttpServer;

/** The `mcpServers` option of an agent: MCP servers by the name their tools are prefixed with. */
export type McpServers = Record<string, McpServerConfig>;

const SERVER_NAME = /^[a-zA-Z0-9-]{1,40}$/;

export function isStdioServer(config: McpServerConfig): config is McpStdioServer {
  return 'command' in config;
}

/** Refuses an `mcpServers` entry that could never connect, when the worker is created rather than mid-run. */
export function validateMcpServers(agent: string, servers: McpServers): void {
  for (const [name, config] of Object.entries(servers)) {
    const where = `Agent "${agent}", MCP server "${name}"`;
    if (!SERVER_NAME.test(name)) {
      throw new ConfigurationError(
        `${where}: a server name is 1-40 letters, digits or "-", without "_" (it prefixes its tools' names: "files_read").`,
      );
    }
    if (!config || typeof config !== 'object') {
      throw new ConfigurationError(`${where}: give { command, args? } or { url, headers?, credentialKey? }.`);
    }
    const hasCommand = 'command' in config;
    const hasUrl = 'url' in config;
    if (hasCommand === hasUrl) {
      throw new ConfigurationError(
        `${where}: give either \`command\` (a stdio server) or \`url\` (a Streamable HTTP server), not ${hasCommand ? 'both' : 'neither'}.`,
      );
    }
    if (isStdioServer(config)) {
      if (typeof config.command !== 'string' || !config.command.trim()) {
        throw new ConfigurationError(`${where}: \`command\` must be a non-empty string.`);
      }
      if (config.args !== undefined && !config.args.every((arg) => typeof arg === 'string')) {
        throw new ConfigurationError(`${where}: \`args\` must be an array of strings.`);
      }
    } else {
      let url: URL;
      try {
        url = new URL(config.url);
      } catch {
        throw new ConfigurationError(`${where}: \`url\` is not a valid URL: ${JSON.stringify(config.url)}.`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new ConfigurationError(`${where}: \`url\` must be http(s), not ${url.protocol}.`);
      }
      if (config.credentialKey !== undefined && !config.credentialKey.trim()) {
        throw new ConfigurationError(`${where}: \`credentialKey\` must name a credential record.`);
      }
    }
  }
}

/** Streamable HTTP on `host:port` (path `/mcp`), for clients that send `Authorization: Bearer <bearerToken>`. */
export interface McpHttpTransport {
  /** 0 picks a free port (read it from `url`). */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Every request must carry it; others get 401. */
  bearerToken: string;
  /**
   * No sessions: each POST gets a fresh MCP server that knows nothing of the client (no
   * elicitation, no resumable streams). Default false: a client's `initialize` opens a session
   * (`Mcp-Session-Id`) that URL elicitation, progress, cancellation and resumed streams go through.
   */
  stateless?: boolean;
  /** A session nobody has used for this long (and with no request open) is closed. Default 30 minutes. */
  sessionIdleTimeoutMs?: number;
}
