import type { Command } from 'commander';
import type { AgentDefinition } from '../agent/definition.ts';
import type { TemporalConnectionOptions } from '../connection/temporal-options.ts';
import type { AgentWorkerOptions } from '../worker.ts';
import { credentialStoreOf, loadConfig, pickAgent, taskQueueOf } from './config.ts';
import { note } from './output.ts';
import { resolveTarget, targetOf, type Target, type TargetOptions } from './target.ts';
import { untilSignal } from './until-signal.ts';

/** What `mcp serve` and `a2a serve` hand their server: the config's agents, where to run them, the worker's stores. */
export interface ServedAgents {
  names: string[];
  agents: Record<string, AgentDefinition>;
  temporal: TemporalConnectionOptions & { taskQueue: string };
  worker: Pick<AgentWorkerOptions, 'memoryStore' | 'encryption' | 'workflowBundle'>;
  target: Target;
}

/**
 * The agents a `serve` command offers (`--agent`, default all of the config's), each with the
 * config's credential store unless it has its own, on the command's cluster or a temporary server,
 * with the config's memory store and encryption.
 */
export async function servedAgents(
  opts: TargetOptions & { agent: string[] },
  cmd: Command,
): Promise<ServedAgents> {
  const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
  pickAgent(loaded.config); // fails clearly when there is no agent
  const names = opts.agent.length ? opts.agent : Object.keys(loaded.config.agents);
  for (const name of names) pickAgent(loaded.config, name);
  const target = await resolveTarget(targetOf(opts), loaded.config, true);
  const credentialStore = credentialStoreOf(loaded.config);
  return {
    names,
    agents: Object.fromEntries(
      names.map((name) => {
        const agent = loaded.config.agents[name]!;
        return [name, { ...agent, credentialStore: agent.credentialStore ?? credentialStore }];
      }),
    ),
    temporal: { ...target.temporal, taskQueue: taskQueueOf(loaded) },
    worker: {
      ...(loaded.config.memoryStore ? { memoryStore: loaded.config.memoryStore } : {}),
      ...(loaded.config.encryption ? { encryption: loaded.config.encryption } : {}),
      ...(process.env.TOOLKIT_AGENT_WORKFLOW_BUNDLE
        ? { workflowBundle: { codePath: process.env.TOOLKIT_AGENT_WORKFLOW_BUNDLE } }
        : {}),
    },
    target,
  };
}

/** Serves until Ctrl-C (or SIGTERM), then closes the server and lets go of the cluster or temporary server. */
export async function serveUntilStopped(
  what: string,
  serving: { close(): Promise<void> },
  target: Target,
): Promise<void> {
  note(`Serving ${what}. Press Ctrl-C to stop.`);
  try {
    await untilSignal();
  } finally {
    await serving.close();
    await target.release();
  }
}
