import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AgentDefinition } from '../agent/definition.ts';
import { FileCredentialStore } from '../credentials/file-store.ts';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import type { TemporalConnectionOptions } from '../connection/temporal-options.ts';
import type { CredentialStore } from '../credentials/types.ts';
import type { Quotas } from '../usage/quotas.ts';
import type { Pricing } from '../usage/summary.ts';
import type { UsageStore } from '../usage/types.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { Trigger } from '../triggers/types.ts';
import type { OAuthEndpoints } from '../oauth/config.ts';
import { dataDir } from '../paths.ts';
import { CliError, UsageError } from './output.ts';

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

/** The file names `toolkit-agent` looks for, in the current folder and its parents. */
export const CONFIG_FILES = [
  'toolkit-agent.config.ts',
  'toolkit-agent.config.mts',
  'toolkit-agent.config.js',
  'toolkit-agent.config.mjs',
];

export interface LoadedConfig {
  path: string;
  config: ToolkitAgentConfig;
}

/** Finds the config file: `explicit`, else the nearest of {@link CONFIG_FILES} from `cwd` upwards. */
export function findConfigFile(explicit: string | undefined, cwd = process.cwd()): string | undefined {
  if (explicit) {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) throw new UsageError(`No config file at ${path}.`);
    return path;
  }
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    for (const name of CONFIG_FILES) if (existsSync(join(dir, name))) return join(dir, name);
    if (dirname(dir) === dir) return undefined;
  }
}

/** Loads the config, or fails saying how to make one. */
export async function loadConfig(explicit?: string): Promise<LoadedConfig> {
  const path = findConfigFile(explicit);
  if (!path) {
    throw new CliError(
      'No toolkit-agent.config.ts here or in a parent folder. Run `toolkit-agent init` to write one, or pass --config <file>.',
    );
  }
  let module: { default?: unknown; config?: unknown };
  try {
    module = (await import(pathToFileURL(path).href)) as typeof module;
  } catch (error) {
    throw new CliError(`Could not load ${path}: ${(error as Error).message}`);
  }
  const config = (module.default ?? module.config) as ToolkitAgentConfig | undefined;
  if (!config || typeof config !== 'object') {
    throw new CliError(
      `${path} must export its config as default: export default defineConfig({ agents: { ... } }).`,
    );
  }
  return { path, config: { ...config, agents: config.agents ?? {} } };
}

/** The config's agent `name`, or its default agent. */
export function pickAgent(config: ToolkitAgentConfig, name?: string): string {
  const names = Object.keys(config.agents);
  if (!names.length) throw new CliError('The config has no agents: add one under `agents`.');
  const chosen = name ?? config.defaultAgent ?? names[0]!;
  if (!config.agents[chosen]) {
    throw new UsageError(`No agent named "${chosen}" in the config; it has: ${names.join(', ')}.`);
  }
  return chosen;
}

/** The task queue of a project: the config's, else one named after its folder and path. */
export function taskQueueOf(loaded: LoadedConfig): string {
  if (loaded.config.temporal?.taskQueue) return loaded.config.temporal.taskQueue;
  const hash = createHash('sha256').update(loaded.path).digest('hex').slice(0, 8);
  const folder = basename(dirname(loaded.path)).replace(/[^\w.-]+/g, '-');
  return `toolkit-agent-${folder}-${hash}`;
}

/** The credential file used when the config names no store. */
export function defaultCredentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'credentials.json');
}

/** The config's credential store, or the default file store. */
export function credentialStoreOf(config: ToolkitAgentConfig | undefined): CredentialStore {
  return config?.credentialStore ?? new FileCredentialStore({ path: defaultCredentialsPath() });
}

/** The config when there is one (commands like `creds` work without it). */
export async function loadOptionalConfig(configPath?: string): Promise<LoadedConfig | undefined> {
  const path = findConfigFile(configPath);
  return path ? loadConfig(path) : undefined;
}

/** The config's credential store, or the default file store (no config needed). */
export async function credentialStoreFor(configPath?: string): Promise<CredentialStore> {
  return credentialStoreOf((await loadOptionalConfig(configPath))?.config);
}
