import { ConfigurationError } from '../errors.ts';
import type { McpServerConfig } from '../mcp/options.ts';
import type { BaseConnectorTool } from '../tools/connector-base.ts';
import type { RateLimits } from './types.ts';

/** One rate-limited task queue: the calls of tools reading `credentialKey` run there. */
export interface RateLimitedQueue {
  credentialKey: string;
  taskQueue: string;
  perSecond: number;
  /** Whose rate it is: each account's (per fairness key) or the whole fleet's. */
  per: 'account' | 'fleet';
}

/**
 * The rate-limited queues of a worker: one per limited credential key, named after the worker's
 * task queue and the key (so every worker of the fleet polls the same one). A key limited in
 * several places (the worker, agents) gets the lowest rate, and is the fleet's when any place says
 * so. A bad rate or `per` names the key.
 */
export function rateLimitedQueues(
  taskQueue: string,
  sources: Array<{ where: string; limits: RateLimits | undefined }>,
): Map<string, RateLimitedQueue> {
  const queues = new Map<string, RateLimitedQueue>();
  for (const { where, limits } of sources) {
    for (const [credentialKey, limit] of Object.entries(limits ?? {})) {
      const perSecond = limit?.perSecond;
      if (typeof perSecond !== 'number' || !Number.isFinite(perSecond) || perSecond <= 0) {
        throw new ConfigurationError(
          `${where}: rateLimits["${credentialKey}"].perSecond must be a number above 0 (got ${String(perSecond)}), e.g. { perSecond: 5 }.`,
        );
      }
      const per = limit.per ?? 'account';
      if (per !== 'account' && per !== 'fleet') {
        throw new ConfigurationError(
          `${where}: rateLimits["${credentialKey}"].per must be 'account' or 'fleet' (got ${JSON.stringify(per)}).`,
        );
      }
      const known = queues.get(credentialKey);
      queues.set(credentialKey, {
        credentialKey,
        taskQueue: `${taskQueue}@rate-limit:${credentialKey}`,
        perSecond: Math.min(perSecond, known?.perSecond ?? perSecond),
        per: known?.per === 'fleet' ? 'fleet' : per,
      });
    }
  }
  return queues;
}

/** The task queue of each MCP server whose credential key is rate-limited (servers of other keys are absent). */
export function mcpServerQueues(
  servers: ReadonlyMap<string, McpServerConfig> | undefined,
  queues: ReadonlyMap<string, RateLimitedQueue> | undefined,
): Record<string, string> | undefined {
  if (!servers || !queues?.size) return undefined;
  const found: Record<string, string> = {};
  for (const [server, config] of servers) {
    const key = 'credentialKey' in config ? config.credentialKey : undefined;
    const queue = key ? queues.get(key) : undefined;
    if (queue) found[server] = queue.taskQueue;
  }
  return Object.keys(found).length ? found : undefined;
}

/** The task queue of each tool whose credential key is rate-limited (tools of other keys are absent). */
export function toolQueues(
  tools: Iterable<BaseConnectorTool>,
  queues: ReadonlyMap<string, RateLimitedQueue> | undefined,
): Record<string, string> | undefined {
  if (!queues?.size) return undefined;
  const found: Record<string, string> = {};
  for (const tool of tools) {
    const queue = queues.get(tool.credentialKey);
    if (queue) found[tool.name] = queue.taskQueue;
  }
  return Object.keys(found).length ? found : undefined;
}
