import type * as ClientIndex from '@modelcontextprotocol/sdk/client/index.js';
import type * as ClientStdio from '@modelcontextprotocol/sdk/client/stdio.js';
import type * as ClientHttp from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type * as ServerMcp from '@modelcontextprotocol/sdk/server/mcp.js';
import type * as ServerStdio from '@modelcontextprotocol/sdk/server/stdio.js';
import type * as ServerHttp from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type * as Types from '@modelcontextprotocol/sdk/types.js';
import type * as Ajv from '@modelcontextprotocol/sdk/validation/ajv';
import type * as ClientV2 from '@modelcontextprotocol/client';
import type * as ServerV2 from '@modelcontextprotocol/server';
import { importOptional, MissingDependencyError } from '../optional-dependency.ts';

/**
 * The parts of the MCP SDK (`@modelcontextprotocol/sdk`, an optional peer dependency) that agents
 * with `mcpServers` use, loaded on first use.
 */
export interface McpClientSdk {
  Client: typeof ClientIndex.Client;
  StdioClientTransport: typeof ClientStdio.StdioClientTransport;
  StreamableHTTPClientTransport: typeof ClientHttp.StreamableHTTPClientTransport;
  StreamableHTTPError: typeof ClientHttp.StreamableHTTPError;
  ToolListChangedNotificationSchema: typeof Types.ToolListChangedNotificationSchema;
  McpError: typeof Types.McpError;
  ErrorCode: typeof Types.ErrorCode;
  AjvJsonSchemaValidator: typeof Ajv.AjvJsonSchemaValidator;
}

/** The parts `serveMcp` uses. */
export interface McpServerSdk {
  McpServer: typeof ServerMcp.McpServer;
  StdioServerTransport: typeof ServerStdio.StdioServerTransport;
  StreamableHTTPServerTransport: typeof ServerHttp.StreamableHTTPServerTransport;
  isInitializeRequest: typeof Types.isInitializeRequest;
}

const SDK = '@modelcontextprotocol/sdk';
let client: Promise<McpClientSdk> | undefined;
let loadedClient: McpClientSdk | undefined;

/** The client side of the SDK (loaded once); names the package to install when it is missing. */
export function loadMcpClientSdk(): Promise<McpClientSdk> {
  const feature = 'MCP servers as tool sources (mcpServers)';
  client ??= Promise.all([
    importOptional<typeof ClientIndex>(`${SDK}/client/index.js`, feature),
    importOptional<typeof ClientStdio>(`${SDK}/client/stdio.js`, feature),
    importOptional<typeof ClientHttp>(`${SDK}/client/streamableHttp.js`, feature),
    importOptional<typeof Types>(`${SDK}/types.js`, feature),
    importOptional<typeof Ajv>(`${SDK}/validation/ajv`, feature),
  ]).then(([index, stdio, http, types, ajv]) => {
    loadedClient = {
      Client: index.Client,
      StdioClientTransport: stdio.StdioClientTransport,
      StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
      StreamableHTTPError: http.StreamableHTTPError,
      ToolListChangedNotificationSchema: types.ToolListChangedNotificationSchema,
      McpError: types.McpError,
      ErrorCode: types.ErrorCode,
      AjvJsonSchemaValidator: ajv.AjvJsonSchemaValidator,
    };
    return loadedClient;
  });
  client.catch(() => (client = undefined));
  return client;
}

/** The parts of the 2.x client (`@modelcontextprotocol/client`) used to speak 2026-07-28. */
export interface McpClientV2Sdk {
  Client: typeof ClientV2.Client;
  StreamableHTTPClientTransport: typeof ClientV2.StreamableHTTPClientTransport;
  SdkError: typeof ClientV2.SdkError;
  SdkHttpError: typeof ClientV2.SdkHttpError;
  SdkErrorCode: typeof ClientV2.SdkErrorCode;
  ProtocolError: typeof ClientV2.ProtocolError;
}

let clientV2: Promise<McpClientV2Sdk | undefined> | undefined;
let loadedClientV2: McpClientV2Sdk | undefined;

/**
 * The 2.x client (an optional peer dependency: servers of 2026-07-28 need it), loaded once;
 * `undefined` when it is not installed, and the 1.x SDK is used instead.
 */
export function loadMcpClientV2Sdk(): Promise<McpClientV2Sdk | undefined> {
  clientV2 ??= importOptional<typeof ClientV2>(
    '@modelcontextprotocol/client',
    'MCP 2026-07-28 servers as tool sources',
  ).then(
    (v2) => {
      loadedClientV2 = {
        Client: v2.Client,
        StreamableHTTPClientTransport: v2.StreamableHTTPClientTransport,
        SdkError: v2.SdkError,
        SdkHttpError: v2.SdkHttpError,
        SdkErrorCode: v2.SdkErrorCode,
        ProtocolError: v2.ProtocolError,
      };
      return loadedClientV2;
    },
    (error: unknown) => {
      if (error instanceof MissingDependencyError) return undefined;
      clientV2 = undefined;
      throw error;
    },
  );
  return clientV2;
}

/** The 2.x client if it was loaded (an error can only come from it once it was). */
export function loadedMcpClientV2Sdk(): McpClientV2Sdk | undefined {
  return loadedClientV2;
}

/** The client side of the SDK if it was loaded (an error can only come from the SDK once it was). */
export function loadedMcpClientSdk(): McpClientSdk | undefined {
  return loadedClient;
}

/** The server side of the SDK, for `serveMcp`. */
export async function loadMcpServerSdk(): Promise<McpServerSdk> {
  const feature = 'serveMcp (agents as an MCP server)';
  const [mcp, stdio, http, types] = await Promise.all([
    importOptional<typeof ServerMcp>(`${SDK}/server/mcp.js`, feature),
    importOptional<typeof ServerStdio>(`${SDK}/server/stdio.js`, feature),
    importOptional<typeof ServerHttp>(`${SDK}/server/streamableHttp.js`, feature),
    importOptional<typeof Types>(`${SDK}/types.js`, feature),
  ]);
  return {
    McpServer: mcp.McpServer,
    StdioServerTransport: stdio.StdioServerTransport,
    StreamableHTTPServerTransport: http.StreamableHTTPServerTransport,
    isInitializeRequest: types.isInitializeRequest,
  };
}

/** The parts of the 2.x server (`@modelcontextprotocol/server`) that serve 2026-07-28 clients. */
export interface McpServerV2Sdk {
  McpServer: typeof ServerV2.McpServer;
  createMcpHandler: typeof ServerV2.createMcpHandler;
  isLegacyRequest: typeof ServerV2.isLegacyRequest;
  inputRequired: typeof ServerV2.inputRequired;
  inputResponse: typeof ServerV2.inputResponse;
  createRequestStateCodec: typeof ServerV2.createRequestStateCodec;
  CLIENT_CAPABILITIES_META_KEY: typeof ServerV2.CLIENT_CAPABILITIES_META_KEY;
}

/**
 * The 2.x server (an optional peer dependency: 2026-07-28 clients need it); `undefined` when it is
 * not installed, and `serveMcp` serves 2025-11-25 only.
 */
export async function loadMcpServerV2Sdk(): Promise<McpServerV2Sdk | undefined> {
  try {
    const v2 = await importOptional<typeof ServerV2>(
      '@modelcontextprotocol/server',
      'serveMcp for MCP 2026-07-28 clients',
    );
    return {
      McpServer: v2.McpServer,
      createMcpHandler: v2.createMcpHandler,
      isLegacyRequest: v2.isLegacyRequest,
      inputRequired: v2.inputRequired,
      inputResponse: v2.inputResponse,
      createRequestStateCodec: v2.createRequestStateCodec,
      CLIENT_CAPABILITIES_META_KEY: v2.CLIENT_CAPABILITIES_META_KEY,
    };
  } catch (error) {
    if (error instanceof MissingDependencyError) return undefined;
    throw error;
  }
}
