import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { AgentDefinition } from '../agent/definition.ts';
import { AgentClient } from '../client/agent-client.ts';
import { encryptionDataConverter } from '../codec/aes-gcm-codec.ts';
import { connectWorkerConnection } from '../connection/connect.ts';
import {
  resolveTemporalConnection,
  type ResolvedTemporalConnection,
  type TemporalConnectionOptions,
} from '../connection/temporal-options.ts';
import { acquireEmbeddedServer, type EmbeddedServerOptions } from '../embedded/dev-server.ts';
import { SqliteMemoryStore } from '../memory/sqlite.ts';
import { defaultMemoryPath } from '../paths.ts';
import { createAgentWorker, type AgentWorkerOptions } from '../worker.ts';
import { createAgentMcpServer, runToolName } from './agent-server.ts';
import { loadMcpServerSdk } from './sdk.ts';
import { toOutputJsonSchema } from '../output/schema.ts';
import type { McpHttpTransport } from './options.ts';
import { serveHttp, serveStdio } from './serve-transports.ts';

export type { McpHttpTransport } from './options.ts';

/** Options of {@link serveMcp}. */
export interface ServeMcpOptions {
  /** The agents to offer, as `run_<name>` tools: the same definitions `createAgentWorker` takes. */
  agents: Record<string, AgentDefinition>;
  /**
   * An existing cluster (profile, address, namespace, API key, TLS) and the task queue to run on.
   * Without it an embedded dev server is started (and shared in this process).
   */
  temporal?: TemporalConnectionOptions & { taskQueue?: string };
  /** `'stdio'` (this process is the MCP server a client started) or Streamable HTTP on a port. */
  transport: 'stdio' | McpHttpTransport;
  /** Settings of the embedded server (used only without `temporal`). */
  embedded?: EmbeddedServerOptions;
  /** Further settings of the worker that runs the agents (memory store, encryption, workflow bundle, ...). */
  worker?: Omit<
    AgentWorkerOptions,
    'agents' | 'taskQueue' | 'connection' | 'temporal' | 'address' | 'namespace'
  >;
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
  const cleanup: Array<() => Promise<unknown>> = [];
  const close = async (): Promise<void> => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
  };
  try {
    let resolved: ResolvedTemporalConnection;
    if (options.temporal) {
      resolved = resolveTemporalConnection(options.temporal);
    } else {
      const embedded = await acquireEmbeddedServer(options.embedded);
      cleanup.push(embedded.release);
      resolved = { address: embedded.server.address, namespace: embedded.server.namespace };
    }
    const taskQueue = options.temporal?.taskQueue ?? `toolkit-agent-mcp-${randomUUID()}`;
    const memoryStore = options.worker?.memoryStore ?? new SqliteMemoryStore({ path: defaultMemoryPath() });
    if (!options.worker?.memoryStore) cleanup.push(async () => memoryStore.close?.());
    const workerConnection = await connectWorkerConnection(resolved);
    cleanup.push(() => workerConnection.close());
    const worker = await createAgentWorker({
      ...options.worker,
      agents: options.agents,
      connection: workerConnection,
      namespace: resolved.namespace,
      taskQueue,
      memoryStore,
    });
    const running = worker.run();
    cleanup.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    });
    const dataConverter = encryptionDataConverter(options.worker?.encryption);
    // The worker's connection: runs start eagerly on the worker above.
    const client = new Client({
      connection: workerConnection,
      namespace: resolved.namespace,
      ...(dataConverter ? { dataConverter } : {}),
    });
    const agents = new AgentClient({ client, taskQueue });
    const server = () => createAgentMcpServer(sdk, agents, names, outputs);
    const serving = stdio
      ? await serveStdio(sdk, server)
      : await serveHttp(sdk, server, options.transport as McpHttpTransport);
    cleanup.push(() => serving.close());
    return { ...(serving.url ? { url: serving.url } : {}), close };
  } catch (error) {
    await close();
    throw error;
  }
}
