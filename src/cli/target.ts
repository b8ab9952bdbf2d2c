import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import { dataDir } from '../paths.ts';
import type { ToolkitAgentConfig } from './config.ts';
import { CliError, note } from './output.ts';

/** Where a command talks to Temporal, and how it was chosen. */
export interface Target {
  address: string;
  namespace: string;
  source: 'option' | 'TEMPORAL_ADDRESS' | 'config' | 'server' | 'temporary';
  /** Stops what this process started (a temporary server). */
  release(): Promise<void>;
}

/** What a running `toolkit-agent server` writes under `~/.toolkit-agent`, for the other commands to find it. */
export interface ServerState {
  address: string;
  namespace: string;
  uiUrl?: string;
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
}

/**
 * Picks the cluster: `--address`, else `TEMPORAL_ADDRESS`, else the config's `temporal.address`,
 * else a running `toolkit-agent server`; else, when `temporary` is allowed, an embedded server for
 * this process only (runs and sessions end with it), else an error saying how to start one.
 */
export async function resolveTarget(
  options: TargetOptions,
  config: ToolkitAgentConfig | undefined,
  temporary: boolean,
): Promise<Target> {
  const namespace = options.namespace ?? config?.temporal?.namespace ?? 'default';
  const fixed = (address: string, source: Target['source']): Target => ({
    address,
    namespace,
    source,
    release: async () => undefined,
  });
  if (options.address) return fixed(options.address, 'option');
  if (process.env.TEMPORAL_ADDRESS) return fixed(process.env.TEMPORAL_ADDRESS, 'TEMPORAL_ADDRESS');
  if (config?.temporal?.address) return fixed(config.temporal.address, 'config');
  const server = await readServerState();
  if (server) return { ...fixed(server.address, 'server'), namespace: options.namespace ?? server.namespace };
  if (!temporary) {
    throw new CliError(
      'No Temporal server to ask: start one with `toolkit-agent server`, or pass --address (or set TEMPORAL_ADDRESS).',
    );
  }
  note(
    'No server running: using a temporary one for this command (`toolkit-agent server` keeps runs and sessions).',
  );
  const { acquireEmbeddedServer } = await import('../embedded/dev-server.ts');
  const embedded = await acquireEmbeddedServer({ log: note });
  return {
    address: embedded.server.address,
    namespace: embedded.server.namespace,
    source: 'temporary',
    release: embedded.release,
  };
}
