import type { AgentDefinition } from '../agent/definition.ts';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import type { TemporalConnectionOptions } from '../connection/temporal-options.ts';
import type { CredentialStore } from '../credentials/types.ts';
import type { Quotas } from '../usage/quotas.ts';
import type { Pricing } from '../usage/summary.ts';
import type { UsageStore } from '../usage/types.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { Trigger } from '../triggers/types.ts';
import type { OAuthEndpoints } from '../oauth/config.ts';

/** An OAuth client for `toolkit-agent auth`. The secret may also come from the environment. */
export interface CliOAuthClient {
  client_id: string;
  client_secret?: string;
  /** A loopback redirect with a port, e.g. `http://127.0.0.1:8976/callback` (the default). */
  redirect_uri?: string;
  scopes?: string[];
  /** Other endpoints than the service's own (self-hosted, tests). */
  endpoints?: OAuthEndpoints;
}

/**
 * What `toolkit-agent.config.ts` exports (see {@link defineConfig}): the agents the CLI runs and
 * serves, and the stores and cluster they use.
 */
export interface ToolkitAgentConfig {
  /** The agents, by name; `run` and `chat` use `defaultAgent` or the first one. */
  agents: Record<string, AgentDefinition>;
  defaultAgent?: string;
  /** Given to agents that have none, and used by `creds` and `auth`. Default: `~/.toolkit-agent/credentials.json`. */
  credentialStore?: CredentialStore;
  /** Where conversations live. Default: `~/.toolkit-agent/memory.sqlite`. */
  memoryStore?: MemoryStore;
  /** The usage ledger the worker writes and `toolkit-agent usage` reads. Default: beside the memory store. */
  usageStore?: UsageStore;
  /** Quotas per tenant for the worker (docs/tenants.md). */
  quotas?: Quotas;
  /** Dollars per million tokens by model: `toolkit-agent usage` then shows cost. */
  pricing?: Pricing;
  /**
   * A cluster to use instead of the local server: a `temporal.toml` profile, or address, namespace,
   * API key and TLS. `taskQueue` defaults to one named after the config's folder, so that `worker`
   * and `run` of one project meet.
   */
  temporal?: TemporalConnectionOptions & { taskQueue?: string };
  /** Payload encryption; it must match between the CLI, the workers and other clients. */
  encryption?: PayloadEncryptionOptions;
  /** OAuth clients for `toolkit-agent auth google` and `auth slack`. */
  oauth?: { google?: CliOAuthClient; slack?: CliOAuthClient };
  /** Webhook triggers `toolkit-agent triggers serve` serves (each at `POST /<name>`). */
  triggers?: Trigger[];
}

/**
 * Types a `toolkit-agent.config.ts` (it returns its argument).
 *
 * @example
 * export default defineConfig({ agents: { assistant: { llm: anthropic('claude-sonnet-4-5') } } });
 */
export function defineConfig(config: ToolkitAgentConfig): ToolkitAgentConfig {
  return config;
}
