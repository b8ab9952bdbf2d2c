import type { Command } from 'commander';
import { loadOptionalConfig, taskQueueOf } from './config.ts';
import { resolveTarget } from './target.ts';

/**
 * After `auth` stored tokens: wakes the config's runs and chat turns of `tenant` waiting on those
 * keys (mid-run authorization), when a cluster is configured or a `toolkit-agent server` runs.
 * Answers how many runs were told, or why none could be (they then find the tokens within a minute).
 */
export async function wakeWaitingRuns(
  cmd: Command,
  tenant: string | undefined,
  keys: string[],
): Promise<{ woken: number } | { skipped: string }> {
  try {
    const loaded = await loadOptionalConfig(cmd.optsWithGlobals<{ config?: string }>().config);
    if (!loaded) return { skipped: 'no config names the agents' };
    const target = await resolveTarget({}, loaded.config, false);
    const { AgentClient } = await import('../client/agent-client.ts');
    const encryption = loaded.config.encryption;
    const agents = await AgentClient.connect({
      taskQueue: taskQueueOf(loaded),
      temporal: target.temporal,
      ...(encryption ? { encryption } : {}),
    });
    try {
      const woken = new Set<string>();
      for (const key of keys)
        for (const id of await agents.authorizationCompleted(tenant, key)) woken.add(id);
      return { woken: woken.size };
    } finally {
      await agents.close();
    }
  } catch (error) {
    return { skipped: error instanceof Error ? error.message.split('\n')[0]! : String(error) };
  }
}
