import { DefaultLogger, Runtime } from '@temporalio/worker';
import { hostAgents, type AgentHostOptions } from '../serving/agent-host.ts';
import { createAgentMcpServer, createAgentMcpServerV2, runToolName } from './agent-server.ts';
import { loadMcpServerSdk, loadMcpServerV2Sdk } from './sdk.ts';
import { modernMcpRoute } from './serve-modern.ts';
import { toOutputJsonSchema } from '../output/schema.ts';
import type { McpHttpTransport } from './options.ts';
import { serveHttp, serveStdio } from './serve-transports.ts';

export type { McpHttpTransport } from './options.ts';

/** Options of {@link serveMcp}. */
export interface ServeMcpOptions extends AgentHostOptions {
  /** `'stdio'` (this process is the MCP server a client started) or Streamable HTTP on a port. */
  transport: 'stdio' | McpHttpTransport;
}

/** A running MCP server of agents. */
export interface McpServing {
  /** The Streamable HTTP endpoint (`http://host:port/mcp`); undefined for stdio. */
  url?: string;
  /** Stops serving, stops the worker and closes the connections (runs in flight stay durable). */
  close(): Promise<void>;
}

/**
 * Offers agents to MCP clients: each agent becomes a tool `run_<agent>` (input `prompt`, optional
 * `session_id`) that starts a durable run, reports its events as progress notifications and answers
 * with the final output. Runs an in-process worker for the agents on `temporal` (or an embedded dev
 * server). Over HTTP every request must carry `Authorization: Bearer <bearerToken>` (401 otherwise).
 * An agent with an `output` schema declares it as the tool's `outputSchema` and answers with the
 * object in `structuredContent.output`.
 *
 * @example
 * const mcp = await serveMcp({
 *   agents: { support: { llm, tools: [new CustomAPITool()], credentialStore } },
 *   transport: { port: 8765, bearerToken: process.env.MCP_TOKEN! },
 * });
 * console.log(mcp.url); // http://127.0.0.1:8765/mcp
 */
export async function serveMcp(options: ServeMcpOptions): Promise<McpServing> {
  const names = Object.keys(options.agents ?? {});
  names.forEach(runToolName); // a name no client could call fails here, before anything starts
  const sdk = await loadMcpServerSdk(); // a missing SDK is named before anything starts
  const v2 = options.transport === 'stdio' ? undefined : await loadMcpServerV2Sdk();
  const outputs = Object.fromEntries(
    names.map((name) => {
      const schema = options.agents[name]!.output;
      return [name, schema === undefined ? undefined : toOutputJsonSchema(schema, `Agent "${name}"`)];
    }),
  );
  const stdio = options.transport === 'stdio';
  // Over stdio, stdout belongs to the protocol: Temporal's log lines go to stderr.
  if (!Runtime._instance) {
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry) => process.stderr.write(`${entry.level} ${entry.message}\n`)),
    });
  }
  const host = await hostAgents(options, 'toolkit-agent-mcp');
  try {
    const server = () => createAgentMcpServer(sdk, host.agents, names, outputs);
    const serving = stdio
      ? await serveStdio(sdk, server)
      : await serveHttp(
          sdk,
          server,
          options.transport as McpHttpTransport,
          v2 && modernMcpRoute(v2, () => createAgentMcpServerV2(v2, host.agents, names, outputs)),
        );
    const close = async (): Promise<void> => {
      await serving.close().catch(() => undefined);
      await host.close();
    };
    return { ...(serving.url ? { url: serving.url } : {}), close };
  } catch (error) {
    await host.close();
    throw error;
  }
}
