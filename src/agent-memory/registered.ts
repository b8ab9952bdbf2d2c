import { ConfigurationError } from '../errors.ts';
import { LongTermMemory } from '../long-term-memory/long-term-memory.ts';
import type { LongTermMemoryStore } from '../long-term-memory/types.ts';
import type { MemoryStore } from '../memory/types.ts';
import { checkWorkingMemory, type WorkingMemory } from './working-memory.ts';
import type { AgentMemoryOptions, MemoryResourceContext } from './options.ts';

/** How many remembered messages `recall` gives when the definition says nothing. */
export const DEFAULT_RECALL_LIMIT = 5;
const MAX_RECALL_LIMIT = 50;
/** How many turns of a chat session are condensed into observations at once, unless the agent says. */
const DEFAULT_OBSERVE_EVERY_TURNS = 10;
const TENANT_PREFIX = 'tenant:';

/** An agent's `memory` option, checked when the worker is created. */
export interface RegisteredMemory {
  memory: LongTermMemory;
  resource: AgentMemoryOptions['resource'];
  limit: number;
  mode: 'auto' | 'tool';
  /** The profile kept per resource, when the agent has one. */
  working?: WorkingMemory;
  /** Turns of a chat session condensed into observations at once; absent when `observe` is off. */
  observeEveryTurns?: number;
}

/** A `LongTermMemory` or a store to wrap in one. */
export type LongTermMemoryOption = LongTermMemory | LongTermMemoryStore;

/** The memory a `LongTermMemory` or a bare store gives. */
export function toLongTermMemory(option: LongTermMemoryOption): LongTermMemory {
  return option instanceof LongTermMemory ? option : new LongTermMemory({ store: option });
}

/**
 * Checks an agent's `memory` option; `fallback` is the worker's `longTermMemory`, `memoryStore` the
 * agent's (where working memory is kept).
 */
export function registerMemory(
  agent: string,
  option: AgentMemoryOptions | undefined,
  fallback: LongTermMemory | undefined,
  memoryStore: MemoryStore,
): RegisteredMemory | undefined {
  if (option === undefined) return undefined;
  const where = `Agent "${agent}": memory`;
  if (typeof option?.resource !== 'function')
    throw new ConfigurationError(
      `${where}.resource must be a function of the run's context answering whose memory it is, ` +
        'e.g. resource: ({ tenant }) => tenant.',
    );
  const memory = option.store ? toLongTermMemory(option.store) : fallback;
  if (!memory)
    throw new ConfigurationError(
      `${where} has no store: give memory.store (e.g. new SqliteLongTermStore({ path })) or ` +
        "createAgentWorker's longTermMemory.",
    );
  const limit = option.recall?.limit ?? DEFAULT_RECALL_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RECALL_LIMIT)
    throw new ConfigurationError(
      `${where}.recall.limit must be a whole number from 1 to ${MAX_RECALL_LIMIT}; got ${JSON.stringify(limit)}.`,
    );
  const mode = option.recall?.mode ?? 'auto';
  if (mode !== 'auto' && mode !== 'tool')
    throw new ConfigurationError(
      `${where}.recall.mode must be 'auto' or 'tool'; got ${JSON.stringify(mode)}.`,
    );
  const observeEveryTurns = observeCadence(where, option.observe);
  const working =
    option.workingMemory === undefined
      ? undefined
      : { schema: checkWorkingMemory(agent, option.workingMemory), store: memoryStore };
  return {
    memory,
    resource: option.resource,
    limit,
    mode,
    ...(working ? { working } : {}),
    ...(observeEveryTurns ? { observeEveryTurns } : {}),
  };
}

/** How many turns are condensed at once (`observe`), or undefined when it is off. */
function observeCadence(where: string, observe: AgentMemoryOptions['observe']): number | undefined {
  if (observe === undefined || observe === false) return undefined;
  const every = observe === true ? DEFAULT_OBSERVE_EVERY_TURNS : observe.everyTurns;
  if (every === undefined) return DEFAULT_OBSERVE_EVERY_TURNS;
  if (!Number.isInteger(every) || every < 1 || every > 1000)
    throw new ConfigurationError(
      `${where}.observe.everyTurns must be a whole number from 1 to 1000; got ${JSON.stringify(every)}.`,
    );
  return every;
}

/**
 * The resource a run or turn reads and writes, scoped by its tenant, or `undefined` when the agent's
 * `resource` answers none. A function that throws, or answers something other than a non-empty
 * string, fails the run with a message that says so.
 */
export function resourceOf(memory: RegisteredMemory, context: MemoryResourceContext): string | undefined {
  const resource = memory.resource(context);
  if (resource === undefined) return undefined;
  if (typeof resource !== 'string' || resource.trim() === '')
    throw new ConfigurationError(
      `Agent "${context.agent}": memory.resource answered ${JSON.stringify(resource)}; ` +
        'answer a non-empty string, or undefined for a run without memory.',
    );
  return scopedResource(resource, context.tenant);
}

/**
 * Where a tenant's resource is kept: `tenant:<tenant>/<resource>`, so that one tenant's runs never
 * read another's memory. A resource without a tenant may not itself begin with `tenant:`.
 */
export function scopedResource(resource: string, tenant: string | undefined): string {
  if (tenant !== undefined) return `${TENANT_PREFIX}${tenant}/${resource}`;
  if (resource.startsWith(TENANT_PREFIX))
    throw new ConfigurationError(
      `The memory resource "${resource}" begins with "${TENANT_PREFIX}", which is kept for tenants' ` +
        "resources: name the tenant instead (the run's tenant, or --tenant on the command line).",
    );
  return resource;
}
