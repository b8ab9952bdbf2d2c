import type { AgentClient } from '../client/agent-client.ts';
import { ConfigurationError } from '../errors.ts';
import { hostAgents, type AgentHost, type AgentHostOptions } from '../serving/agent-host.ts';
import { A2aAgentHandler } from './agent-handler.ts';
import { agentCard } from './card.ts';
import { serveA2aHttp } from './http.ts';
import type { A2aHttpTransport } from './options.ts';
import { loadA2aServerSdk } from './sdk.ts';

export type { A2aCaller, A2aHttpTransport } from './options.ts';

/** Options of {@link serveA2a}. */
export interface ServeA2aOptions extends AgentHostOptions {
  /**
   * Workers elsewhere run the agents: the server starts their runs with this client and runs no
   * worker of its own (`temporal`, `embedded` and `worker` are then not used). `agents` still
   * gives what each card says.
   */
  client?: AgentClient;
  /** JSON-RPC over HTTP; each request is authorized by a bearer token or by `authorize`. */
  transport: A2aHttpTransport;
  /** What each agent's card says it does, by agent. Default: the first line of its system prompt. */
  descriptions?: Record<string, string>;
}

/** A running A2A server of agents. */
export interface A2aServing {
  /** The server's base URL (`http://host:port`). */
  url: string;
  /**
   * Each agent's base URL (`<url>/<agent>/`), what an A2A client is created from (`ClientFactory.createFromUrl`):
   * its card is at `.well-known/agent-card.json` below it. A server of one agent serves it at `url` too.
   */
  agentUrls: Record<string, string>;
  /** Stops serving (and the worker it ran); tasks in flight go on in Temporal. */
  close(): Promise<void>;
}

const AGENT_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Offers agents to A2A clients (the Agent2Agent protocol 1.0, JSON-RPC binding, as `@a2a-js/sdk`
 * speaks it): each agent has a card and serves `SendMessage`, `SendStreamingMessage`, `GetTask`,
 * `CancelTask` and `SubscribeToTask`. A task is a durable run whose id comes from the message id;
 * its state is read from the workflow on every request, so tasks outlive this server and every
 * worker. A run that waits for a tool call's approval or an authorization is `input-required`,
 * and the client's next message on the task ("approve", "reject: <reason>", "cancel") decides it.
 *
 * @example
 * const a2a = await serveA2a({
 *   agents: { support: { llm, tools: [new CustomAPITool()], credentialStore } },
 *   transport: { port: 8766, bearerToken: process.env.A2A_TOKEN! },
 * });
 * console.log(a2a.agentUrls.support); // http://127.0.0.1:8766/support/
 */
export async function serveA2a(options: ServeA2aOptions): Promise<A2aServing> {
  const names = Object.keys(options.agents ?? {});
  for (const name of names) {
    if (!AGENT_NAME.test(name)) {
      throw new ConfigurationError(
        `Agent "${name}": an agent served over A2A is named with 1-64 letters, digits, "_" or "-" (its URL path).`,
      );
    }
  }
  const sdk = await loadA2aServerSdk(); // a missing SDK is named before anything starts
  let host: AgentHost | undefined;
  const agents = options.client ?? (host = await hostAgents(options, 'toolkit-agent-a2a')).agents;
  try {
    const serving = await serveA2aHttp(
      sdk,
      (baseUrl) => {
        const handlers = new Map(
          names.map((name) => {
            const description = options.descriptions?.[name];
            const card = agentCard(name, options.agents[name]!, {
              url: `${baseUrl}/${name}`,
              bearer: options.transport.bearerToken !== undefined,
              pushNotifications: true,
              ...(description ? { description } : {}),
            });
            const { credentialStore } = options.agents[name]!;
            return [name, new A2aAgentHandler({ agent: name, agents, card, sdk, credentialStore })] as const;
          }),
        );
        // A server of one agent also answers at its root, where A2A clients look for a domain's card.
        const only = names.length === 1 ? handlers.get(names[0]!) : undefined;
        return { handler: (name) => (name === '' ? only : handlers.get(name)) };
      },
      options.transport,
    );
    return {
      url: serving.url,
      agentUrls: Object.fromEntries(names.map((name) => [name, `${serving.url}/${name}/`])),
      async close() {
        await serving.close().catch(() => undefined);
        await host?.close();
      },
    };
  } catch (error) {
    await host?.close();
    throw error;
  }
}
