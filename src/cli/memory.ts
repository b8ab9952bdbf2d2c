import type { Command } from 'commander';
import { ConfigurationError } from '../errors.ts';
import type { LongTermMemory } from '../long-term-memory/long-term-memory.ts';
import type { MemoryStore } from '../memory/types.ts';
import { loadConfig, pickAgent } from './config.ts';
import type { ToolkitAgentConfig } from './config-types.ts';
import { CliError, printJson, printTable, UsageError } from './output.ts';

interface MemoryOptions {
  agent?: string;
  tenant?: string;
}

/**
 * `toolkit-agent memory`: what an agent remembers of a resource (a user, a customer), read from and
 * forgotten in the long-term memory of the config's agent (its `memory.store`, see docs/memory.md).
 */
export function registerMemory(program: Command): void {
  const memory = program
    .command('memory')
    .description("Recall or forget what an agent remembers of a user (the agent's long-term memory)");
  memory
    .command('recall')
    .description('What the memory of <resource> recalls for <query>, best first')
    .argument('<resource>', 'whose memory: the resource the agent names (a user, a customer)')
    .argument('<query>', 'what to look for, in words')
    .option('--tenant <id>', "the resource's tenant (a tenant's memory is its own)")
    .option('--agent <name>', "the agent whose memory to read (default: the config's default agent)")
    .option('--limit <n>', 'at most this many messages', '10')
    .option('--json', 'print the hits as JSON')
    .action(
      async (
        resource: string,
        query: string,
        opts: MemoryOptions & { limit: string; json?: boolean },
        cmd: Command,
      ) => {
        const limit = Number(opts.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
          throw new UsageError(`--limit must be a whole number from 1 to 1000; got "${opts.limit}".`);
        await withMemory(cmd, resource, opts, async ({ memory: ltm, resource: scoped }) => {
          const hits = await ltm.recall({ resource: scoped, query, limit });
          if (opts.json) return printJson(hits);
          if (hits.length === 0)
            return void process.stdout.write(`Nothing remembered of ${resource} matches.\n`);
          printTable(
            ['SCORE', 'WHEN', 'SESSION', 'TEXT'],
            hits.map((hit) => [hit.score.toFixed(3), hit.at.toISOString(), hit.sessionId, oneLine(hit.text)]),
          );
        });
      },
    );
  memory
    .command('forget')
    .description('Forgets <resource> from every index of the memory: all of it, or one session (--session)')
    .argument('<resource>', 'whose memory: the resource the agent names (a user, a customer)')
    .option('--session <id>', 'only this session')
    .option('--tenant <id>', "the resource's tenant")
    .option('--agent <name>', "the agent whose memory to forget in (default: the config's default agent)")
    .action(async (resource: string, opts: MemoryOptions & { session?: string }, cmd: Command) => {
      await withMemory(cmd, resource, opts, async ({ memory: ltm, config }) => {
        const { forgetMemory } = await import('../agent-memory/forget.ts');
        const forgotten = await withWorkingMemoryStore(config, opts.session, (memoryStore) =>
          forgetMemory({
            memory: ltm,
            resource,
            ...(memoryStore ? { memoryStore } : {}),
            ...(opts.tenant !== undefined ? { tenant: opts.tenant } : {}),
            ...(opts.session !== undefined ? { sessionId: opts.session } : {}),
          }),
        );
        const what = opts.session === undefined ? resource : `session ${opts.session} of ${resource}`;
        process.stdout.write(
          `Forgot ${forgotten.messages} message(s) of ${what}` +
            `${forgotten.workingMemory ? ', and its working memory' : ''}.\n`,
        );
      });
    });
}

type AgentConfig = ToolkitAgentConfig['agents'][string];

/** Runs `work` on the long-term memory of the config's agent (the resource scoped by `--tenant`), then closes it. */
async function withMemory(
  cmd: Command,
  given: string,
  opts: MemoryOptions,
  work: (opened: {
    memory: LongTermMemory;
    /** The resource scoped by its tenant, as the agent's runs keep it. */
    resource: string;
    config: { config: ToolkitAgentConfig; agent: AgentConfig };
  }) => Promise<void>,
): Promise<void> {
  const { config } = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
  const name = pickAgent(config, opts.agent);
  const agent = config.agents[name]!;
  const store = agent.memory?.store;
  if (!store)
    throw new CliError(
      `Agent "${name}" keeps no long-term memory of its own: give it memory: { store, resource } in the config, ` +
        'or name another agent with --agent.',
    );
  const { scopedResource, toLongTermMemory } = await import('../agent-memory/registered.ts');
  let resource: string;
  try {
    resource = scopedResource(given, opts.tenant);
  } catch (error) {
    throw new UsageError(error instanceof ConfigurationError ? error.message : String(error));
  }
  const memory = toLongTermMemory(store);
  try {
    await work({ memory, resource, config: { config, agent } });
  } finally {
    await memory.close(); // the command ends here: a PostgreSQL pool must not keep it alive
  }
}

/**
 * Runs `work` with the store that keeps the agent's working memory (its `memoryStore`, else the
 * config's), opened only when a whole resource is forgotten and the agent keeps a working memory.
 */
async function withWorkingMemoryStore<T>(
  { config, agent }: { config: ToolkitAgentConfig; agent: AgentConfig },
  session: string | undefined,
  work: (memoryStore: MemoryStore | undefined) => Promise<T>,
): Promise<T> {
  if (session !== undefined || agent.memory?.workingMemory === undefined) return work(undefined);
  if (agent.memoryStore) return work(agent.memoryStore);
  const { memoryStoreOf } = await import('./memory-store.ts');
  const opened = memoryStoreOf(config);
  try {
    return await work(opened.store);
  } finally {
    await opened.close();
  }
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
