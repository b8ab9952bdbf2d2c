import { ConfigurationError } from '../errors.ts';
import type { MemoryStore } from '../memory/types.ts';
import { scopedResource, toLongTermMemory, type LongTermMemoryOption } from './registered.ts';
import { readWorkingMemory, writeWorkingMemory } from './working-memory.ts';

/** What {@link forgetMemory} takes: whose memory, in which agent's stores. */
export interface ForgetMemoryInput {
  /** The agent's long-term memory: its `memory.store` (a `LongTermMemory` or a store). */
  memory: LongTermMemoryOption;
  /**
   * The agent's memory store (where a resource's working memory is kept). Without it only the
   * long-term memory is forgotten.
   */
  memoryStore?: MemoryStore;
  /** The resource as the agent's `memory.resource` names it (a user, a customer). */
  resource: string;
  /** The resource's tenant: the agent keeps a tenant's resources apart (`tenant:<tenant>/<resource>`). */
  tenant?: string;
  /** Only this session's messages; the working memory, kept per resource, stays. */
  sessionId?: string;
}

/** What {@link forgetMemory} forgot. */
export interface ForgottenMemory {
  /** How many remembered messages were forgotten. */
  messages: number;
  /** Whether a working memory was there and is now empty. */
  workingMemory: boolean;
}

/**
 * A user's deletion request for what an agent with `memory` keeps of them: every message of the
 * resource (or of one session) in its long-term memory and, for the whole resource, its working
 * memory. The resource is scoped by `tenant` as the agent's runs scope it. Does not close the stores.
 */
export async function forgetMemory(input: ForgetMemoryInput): Promise<ForgottenMemory> {
  if (typeof input?.resource !== 'string' || input.resource.trim() === '')
    throw new ConfigurationError(
      `forgetMemory: resource must be a non-empty string (whose memory); got ${JSON.stringify(input?.resource)}.`,
    );
  if (!input.memory)
    throw new ConfigurationError(
      "forgetMemory: memory must be the agent's memory.store (a LongTermMemory or a long-term memory store).",
    );
  const resource = scopedResource(input.resource, input.tenant);
  const messages = await toLongTermMemory(input.memory).forget({
    resource,
    ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
  });
  if (input.sessionId !== undefined || !input.memoryStore) return { messages, workingMemory: false };
  const profile = await readWorkingMemory(input.memoryStore, resource);
  if (Object.keys(profile).length === 0) return { messages, workingMemory: false };
  await writeWorkingMemory(input.memoryStore, resource, {});
  return { messages, workingMemory: true };
}
