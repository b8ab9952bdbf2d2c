import type { Command } from 'commander';
import type { AgentClient } from '../client/agent-client.ts';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import { loadOptionalConfig, taskQueueOf } from './config.ts';
import { resolveTarget, targetOf, type Target, type TargetOptions } from './target.ts';

export interface ConnectOptions extends TargetOptions {
  json?: boolean;
}

/** A client on the running server, the config's cluster or `--address`. */
export async function connect(
  opts: ConnectOptions,
  cmd: Command,
  taskQueue = 'unused',
): Promise<{ agents: AgentClient; target: Target; encryption?: PayloadEncryptionOptions }> {
  const loaded = await loadOptionalConfig(cmd.optsWithGlobals<{ config?: string }>().config);
  const target = await resolveTarget(targetOf(opts), loaded?.config, false);
  const encryption = loaded?.config.encryption;
  const { AgentClient } = await import('../client/agent-client.ts');
  const agents = await AgentClient.connect({
    taskQueue: loaded && taskQueue === 'unused' ? taskQueueOf(loaded) : taskQueue,
    temporal: target.temporal,
    ...(encryption ? { encryption } : {}),
  });
  return { agents, target, ...(encryption ? { encryption } : {}) };
}
