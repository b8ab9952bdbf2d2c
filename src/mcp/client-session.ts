import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from './options.ts';
import { loadMcpClientSdk, loadMcpClientV2Sdk } from './sdk.ts';

const CONNECT_TIMEOUT_MS = 30_000;
const CLIENT_INFO = { name: 'toolkit-agent', version: '0.1.0' };

/** Options of one request: cancellation, timeout and progress (the same in both SDK lines). */
export type McpRequestOptions = Pick<
  RequestOptions,
  'signal' | 'timeout' | 'resetTimeoutOnProgress' | 'onprogress'
>;

/**
 * A connected MCP client, whichever SDK line made it: `@modelcontextprotocol/client` 2.x when it is
 * installed (for HTTP servers: it negotiates 2026-07-28 and falls back to 2025-11-25 itself), the
 * 1.x `@modelcontextprotocol/sdk` otherwise (2025-11-25).
 */
export interface McpClientSession {
  /** The protocol version the connection speaks (`2026-07-28`, `2025-11-25`, ...). */
  readonly protocolVersion: string | undefined;
  /** One page of the server's tools. */
  listTools(
    cursor: string | undefined,
    options?: McpRequestOptions,
  ): Promise<{ tools: Tool[]; nextCursor?: string | undefined }>;
  /** Calls a tool and returns its result. */
  callTool(
    params: { name: string; arguments: Record<string, unknown> },
    options?: McpRequestOptions,
  ): Promise<CallToolResult>;
  /** Ends the connection (a stdio server's process stops). */
  close(): Promise<void>;
}

/** What a new session reports back to its connection. */
export interface SessionHooks {
  /** The server announced `notifications/tools/list_changed`. */
  onToolsChanged(): void;
  /** The connection closed (the process died, the session ended). */
  onClose(): void;
  /** Headers added to every HTTP request (the run's credential), read at each request. */
  authHeaders(): Record<string, string>;
  /** Collects a stdio server's stderr. */
  onStderr(chunk: string): void;
}

/** Connects to `config` with the SDK line that speaks the newest protocol the server does. */
export async function connectMcpSession(
  config: McpServerConfig,
  hooks: SessionHooks,
): Promise<McpClientSession> {
  const fetchWithAuth = (url: string | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(hooks.authHeaders())) headers.set(name, value);
    return fetch(url, { ...init, headers });
  };
  if ('url' in config) {
    const v2 = await loadMcpClientV2Sdk();
    if (v2) {
      // The 2.x client probes with `server/discover` and falls back to `initialize` (2025-11-25).
      const client = new v2.Client(CLIENT_INFO, { versionNegotiation: { mode: 'auto' } });
      const transport = new v2.StreamableHTTPClientTransport(new URL(config.url), {
        requestInit: { headers: config.headers ?? {} },
        fetch: fetchWithAuth,
      });
      client.setNotificationHandler('notifications/tools/list_changed', () => hooks.onToolsChanged());
      client.onclose = () => hooks.onClose();
      await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
      return {
        get protocolVersion() {
          return client.getNegotiatedProtocolVersion();
        },
        // Same wire shape; the 2.x types only say JSON values more precisely. Without a cursor it
        // walks every page itself. The connection keeps its own cache, emptied on list_changed.
        listTools: (cursor, options) =>
          client.listTools(cursor ? { cursor } : undefined, {
            ...options,
            cacheMode: 'bypass',
          }) as Promise<{ tools: Tool[]; nextCursor?: string }>,
        callTool: (params, options) => client.callTool(params, options) as Promise<CallToolResult>,
        close: () => client.close(),
      };
    }
  }
  const sdk = await loadMcpClientSdk();
  const client = new sdk.Client(CLIENT_INFO);
  const transport =
    'url' in config
      ? new sdk.StreamableHTTPClientTransport(new URL(config.url), {
          requestInit: { headers: config.headers ?? {} },
          fetch: fetchWithAuth,
        })
      : new sdk.StdioClientTransport({
          command: config.command,
          args: config.args ?? [],
          ...(config.env ? { env: config.env } : {}),
          ...(config.cwd ? { cwd: config.cwd } : {}),
          stderr: 'pipe',
        });
  if (transport instanceof sdk.StdioClientTransport) {
    transport.stderr?.on('data', (chunk: Buffer) => hooks.onStderr(chunk.toString('utf8')));
  }
  client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => hooks.onToolsChanged());
  client.onclose = () => hooks.onClose();
  await client.connect(transport, { timeout: CONNECT_TIMEOUT_MS });
  return {
    // The 1.x HTTP transport keeps the version `initialize` agreed on; its stdio one does not say.
    protocolVersion: (transport as { protocolVersion?: string }).protocolVersion,
    listTools: (cursor, options) => client.listTools(cursor ? { cursor } : undefined, options),
    callTool: (params, options) => client.callTool(params, undefined, options) as Promise<CallToolResult>,
    close: () => client.close(),
  };
}
