import { z } from 'zod';
import type { CredentialRecord, CredentialStore } from '../credentials/types.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../tools/connector-base.ts';

/**
 * Reads an MCP server's `credentialKey` the way every connector reads its credential (refreshing an
 * OAuth token that is about to expire, registering every secret for redaction), without being a
 * tool the model can call.
 */
class McpCredentialReader extends BaseConnectorTool {
  readonly name: string;
  readonly description = 'Reads the credential of an MCP server.';
  readonly parameters = z.object({});

  constructor(server: string, credentialKey: string) {
    super({ credentialKey });
    this.name = `mcp_${server}`;
  }

  async headers(context: ToolContext): Promise<McpAuth> {
    const record = await this.getCredential(context);
    const header = record.metadata?.header;
    const headers =
      typeof header === 'string' && header.trim()
        ? { [header]: record.token }
        : { authorization: `Bearer ${record.token}` };
    return { headers, record };
  }

  run(): Promise<ToolOutput> {
    return Promise.reject(new Error('The MCP credential reader is not a tool.'));
  }
}

/** The headers that carry a credential, and the record they came from (to refresh it after a 401). */
export interface McpAuth {
  headers: Record<string, string>;
  record: CredentialRecord;
}

/**
 * The headers that carry an MCP server's credential for `tenant`: `Authorization: Bearer <token>`,
 * or the token in the header the record's `metadata.header` names. Every secret read is added to
 * `secrets`, so errors and outputs are redacted against it.
 */
export function mcpAuthHeaders(
  server: string,
  credentialKey: string,
  store: CredentialStore | undefined,
  context: Pick<ToolContext, 'tenant' | 'secrets'> & Partial<ToolContext>,
): Promise<McpAuth> {
  const full: ToolContext = {
    agent: '',
    workflowId: '',
    runId: '',
    callId: '',
    signal: new AbortController().signal,
    heartbeat: () => undefined,
    ...context,
    credentialStore: context.credentialStore ?? store,
    secrets: context.secrets,
  };
  return new McpCredentialReader(server, credentialKey).headers(full);
}
