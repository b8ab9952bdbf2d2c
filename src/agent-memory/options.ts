import type { z } from 'zod';
import type { LongTermMemory } from '../long-term-memory/long-term-memory.ts';
import type { LongTermMemoryStore } from '../long-term-memory/types.ts';

/**
 * What `memory.resource` is told about a run or chat turn: computed on the worker, where these are
 * known; only the string it answers travels to the workflow.
 */
export interface MemoryResourceContext {
  /** The agent the run or turn belongs to. */
  agent: string;
  /** The tenant the run or session was started for, when it names one. */
  tenant?: string;
  /** The chat session's id (absent for a run). */
  sessionId?: string;
  /** The workflow id of the run, or of the chat session. */
  workflowId: string;
}

/** How the model gets what memory recalls (`memory.recall` on an agent definition). */
export interface MemoryRecallOptions {
  /** How many remembered messages at most. Default 5. */
  limit?: number;
  /**
   * `'auto'` (default): before each turn, the best matches for the prompt go into the turn's user
   * message (after the prompt-cache prefix); `'tool'`: the model is given a `recall_memory` tool.
   */
  mode?: 'auto' | 'tool';
}

/**
 * Long-term memory for an agent (docs/memory.md, "Agents that remember"): each chat turn (and each
 * run with a resource) is remembered after it answers, and later sessions of the same resource
 * recall it.
 */
export interface AgentMemoryOptions {
  /**
   * Where memory lives: a `LongTermMemory` or one of its stores (`SqliteLongTermStore`,
   * `PostgresLongTermStore`, `InMemoryLongTermStore`). Default: the worker's `longTermMemory`.
   */
  store?: LongTermMemory | LongTermMemoryStore;
  /**
   * Whose memory a run or turn reads and writes (a user, a customer), or `undefined` for none. Called
   * on the worker; it must answer the same for the same context. A run with a tenant reads and
   * writes that tenant's memory only: the resource is kept as `tenant:<tenant>/<resource>`.
   */
  resource: (context: MemoryResourceContext) => string | undefined;
  /** How the model gets what memory recalls. Default: `{ limit: 5, mode: 'auto' }`. */
  recall?: MemoryRecallOptions;
  /**
   * A profile kept per resource (a zod object schema, e.g. `z.object({ name: z.string(), pets:
   * z.array(z.string()) })`): the model sets its fields with an `update_working_memory` tool, and
   * sees it at the start of every turn. Kept in the agent's memory store.
   */
  workingMemory?: z.ZodObject;
  /**
   * Observations: every 10 turns of a chat session (`{ everyTurns }` to choose), a background
   * activity condenses those turns into dated observations with the agent's model; they are
   * remembered and recalled like turns. Default off.
   */
  observe?: boolean | { everyTurns?: number };
}
