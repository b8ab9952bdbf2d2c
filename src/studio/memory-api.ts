import type { AgentDefinition } from '../agent/definition.ts';
import { forgetMemory } from '../agent-memory/forget.ts';
import { scopedResource, toLongTermMemory } from '../agent-memory/registered.ts';
import { readWorkingMemory, type WorkingProfile } from '../agent-memory/working-memory.ts';
import type { LongTermMemory, RecallHit } from '../long-term-memory/long-term-memory.ts';
import type { MemoryStore } from '../memory/types.ts';

/** What the Memory view shows of a resource: the messages recalled for the query, and its working memory. */
export interface ResourceMemory {
  resource: string;
  hits: RecallHit[];
  /** The profile the agent keeps of the resource (`{}`: none, or the agent keeps no working memory). */
  workingMemory: WorkingProfile;
}

/** An agent's long-term memory as the studio reads it: one per agent, open while the studio is. */
export class StudioMemories {
  readonly #agents: Record<string, AgentDefinition>;
  readonly #memoryStore: MemoryStore | undefined;
  readonly #open = new Map<string, LongTermMemory>();

  /** `memoryStore`: the workers' store, where the working memory of agents without their own `memoryStore` is kept. */
  constructor(agents: Record<string, AgentDefinition>, memoryStore: MemoryStore | undefined) {
    this.#agents = agents;
    this.#memoryStore = memoryStore;
  }

  /** The agents that keep a long-term memory. */
  agents(): string[] {
    return Object.entries(this.#agents).flatMap(([name, agent]) => (agent.memory?.store ? [name] : []));
  }

  /** What `agent` remembers of `resource` (of `tenant`) that matches `query`, best first, and its working memory. */
  async read(agent: string, params: URLSearchParams): Promise<ResourceMemory> {
    const { memory, resource, workingStore } = this.#of(agent, params);
    const query = params.get('q') ?? '';
    const limit = Number(params.get('limit') ?? 20);
    const hits = query.trim() ? await memory.recall({ resource, query, limit }) : [];
    return {
      resource,
      hits,
      workingMemory: workingStore ? await readWorkingMemory(workingStore, resource) : {},
    };
  }

  /**
   * Forgets `resource` (with its working memory), or one `session` of it; answers how many messages
   * went and whether a working memory was there and was reset.
   */
  async forget(
    agent: string,
    params: URLSearchParams,
  ): Promise<{ forgotten: number; workingMemory: boolean }> {
    const { memory, given, tenant, workingStore } = this.#of(agent, params);
    const sessionId = params.get('session') || undefined;
    const forgotten = await forgetMemory({
      memory,
      resource: given,
      ...(tenant ? { tenant } : {}),
      ...(workingStore ? { memoryStore: workingStore } : {}),
      ...(sessionId ? { sessionId } : {}),
    });
    return { forgotten: forgotten.messages, workingMemory: forgotten.workingMemory };
  }

  #of(agent: string, params: URLSearchParams) {
    const definition = Object.hasOwn(this.#agents, agent) ? this.#agents[agent] : undefined;
    const store = definition?.memory?.store;
    if (!definition || !store) throw new MemoryRequestError(`Agent "${agent}" keeps no long-term memory.`);
    const given = params.get('resource') ?? '';
    if (!given.trim())
      throw new MemoryRequestError('Name the resource (a user, a customer) whose memory to read.');
    const tenant = params.get('tenant') || undefined;
    let memory = this.#open.get(agent);
    if (!memory) {
      memory = toLongTermMemory(store);
      this.#open.set(agent, memory);
    }
    const workingStore =
      definition.memory?.workingMemory !== undefined
        ? (definition.memoryStore ?? this.#memoryStore)
        : undefined;
    return { memory, given, tenant, resource: scopedResource(given, tenant), workingStore };
  }
}

/** A memory request the studio cannot answer: 400 with its message. */
export class MemoryRequestError extends Error {}
