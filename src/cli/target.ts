import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { resolveTemporalConnection, type TemporalConnectionOptions } from '../connection/temporal-options.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { dataDir } from '../paths.ts';
import type { ToolkitAgentConfig } from './config-types.ts';
import { CliError, note } from './output.ts';

/** Where a command talks to Temporal, and how it was chosen. */
export interface Target {
  /** What to connect with (for `createAgentWorker` and `AgentClient.connect`). */
  temporal: TemporalConnectionOptions;
  address: string;
  namespace: string;
  source: 'cluster' | 'server' | 'temporary';
  /** Stops what this process started (a temporary server). */
  release(): Promise<void>;
}

/** What a running `toolkit-agent server` writes under `~/.toolkit-agent`, for the other commands to find it. */
export interface ServerState {
  address: string;
  namespace: string;
  uiUrl?: string;
  /** The codec server the UI uses, when payload keys are configured. */
  codecEndpoint?: string;
  db: string;
  pid: number;
}

export function serverStatePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(dataDir(env), 'server.json');
}

export async function writeServerState(state: ServerState): Promise<void> {
  await writeFileAtomic(serverStatePath(), `${JSON.stringify(state, null, 2)}\n`, 0o600);
}

export async function removeServerState(): Promise<void> {
  await rm(serverStatePath(), { force: true });
}

/** The running server's state, or undefined when none runs (a stale file of a dead process is ignored). */
export async function readServerState(): Promise<ServerState | undefined> {
  let state: ServerState;
  try {
    state = JSON.parse(await readFile(serverStatePath(), 'utf8')) as ServerState;
  } catch {
    return undefined;
  }
  try {
    process.kill(state.pid, 0);
  } catch {
    return undefined;
  }
  return state;
}

export interface TargetOptions {
  address?: string;
  namespace?: string;
  profile?: string;
}

/** Only the options that pick a cluster, from a command's options. */
export function targetOf(opts: TargetOptions): TargetOptions {
  return { address: opts.address, namespace: opts.namespace, profile: opts.profile };
}

/** The options that pick a cluster, on every command that talks to Temporal. */
export function withTargetOptions(command: Command): Command {
  return command
    .option(
      '--address <host:port>',
      'Temporal frontend (default: the config, the running server, or a temporary one)',
    )
    .option('--namespace <namespace>', 'Temporal namespace')
    .option('--profile <name>', 'a temporal.toml profile (address, namespace, API key, TLS)');
}

/**
 * Picks the cluster: a configured one (`--address`/`--profile`, `TEMPORAL_ADDRESS`/`TEMPORAL_PROFILE`,
 * or `temporal.address`/`temporal.profile` in the config; API key and TLS come with it), else a
 * running `toolkit-agent server`; else, when `temporary` is allowed, an embedded server for this
 * process only (runs and sessions end with it), else an error saying how to start one.
 */
export async function resolveTarget(
  options: TargetOptions,
  config: ToolkitAgentConfig | undefined,
  temporary: boolean,
): Promise<Target> {
  const { taskQueue: _taskQueue, ...configured } = config?.temporal ?? {};
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const env = process.env;
  if (
    given.address ||
    given.profile ||
    env.TEMPORAL_ADDRESS ||
    env.TEMPORAL_PROFILE ||
    configured.address ||
    configured.profile
  ) {
    const temporal: TemporalConnectionOptions = { ...configured, ...given };
    const resolved = resolveTemporalConnection(temporal);
    return {
      temporal,
      address: resolved.address,
      namespace: resolved.namespace,
      source: 'cluster',
      release: async () => undefined,
    };
  }
  const local = (
    address: string,
    namespace: string,
    source: Target['source'],
    release: () => Promise<void> = async () => undefined,
  ): Target => ({
    temporal: { address, namespace, tls: false },
    address,
    namespace,
    source,
    release,
  });
  const server = await readServerState();
  if (server) return local(server.address, options.namespace ?? server.namespace, 'server');
  if (!temporary) {
    throw new CliError(
      'No Temporal server to ask: start one with `toolkit-agent server`, or pass --address or --profile (or set TEMPORAL_ADDRESS).',
    );
  }
  note(
    'No server running: using a temporary one for this command (`toolkit-agent server` keeps runs and sessions).',
  );
  const { acquireEmbeddedServer } = await import('../embedded/dev-server.ts');
  const embedded = await acquireEmbeddedServer({
    log: note,
    cli: { progress: Boolean(process.stderr.isTTY) },
    ...(options.namespace ? { namespace: options.namespace } : {}),
  });
  return local(embedded.server.address, embedded.server.namespace, 'temporary', embedded.release);
}
