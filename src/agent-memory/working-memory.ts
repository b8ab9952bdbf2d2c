import { z } from 'zod';
import { ConfigurationError } from '../errors.ts';
import type { MemoryStore } from '../memory/types.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../tools/connector-base.ts';

/** The name of the tool an agent with `memory.workingMemory` is given. */
export const UPDATE_WORKING_MEMORY_TOOL = 'update_working_memory';

/** A resource's working memory: a profile (the agent's zod object schema, every field optional). */
export type WorkingProfile = Record<string, unknown>;

/** Where a resource's working memory is kept in the agent's memory store: one message at position 0. */
export function workingMemoryKey(resource: string): string {
  return `working-memory:${resource}`;
}

/** The working memory of an agent: its schema, and the memory store that keeps the profiles. */
export interface WorkingMemory {
  schema: z.ZodObject;
  store: MemoryStore;
}

/** Checks `memory.workingMemory`: a zod object schema, whose fields the model fills in one by one. */
export function checkWorkingMemory(agent: string, schema: unknown): z.ZodObject {
  if (!(schema instanceof z.ZodObject))
    throw new ConfigurationError(
      `Agent "${agent}": memory.workingMemory must be a zod object schema, e.g. z.object({ name: z.string() }).`,
    );
  return schema;
}

/** The resource's profile as stored (empty when none was written, or it was forgotten). */
export async function readWorkingMemory(store: MemoryStore, resource: string): Promise<WorkingProfile> {
  const [stored] = await store.read(workingMemoryKey(resource), { before: 1 });
  if (!stored?.content) return {};
  return JSON.parse(stored.content) as WorkingProfile;
}

/** Replaces the resource's profile (`{}` forgets it). */
export async function writeWorkingMemory(
  store: MemoryStore,
  resource: string,
  profile: WorkingProfile,
): Promise<void> {
  const content = Object.keys(profile).length ? JSON.stringify(profile) : '';
  await store.append(workingMemoryKey(resource), 0, [{ role: 'system', content }]);
}

/** The profile as the model reads it at the start of each turn. */
export function formatWorkingMemory(profile: WorkingProfile): string {
  return (
    `Working memory about this user (keep it current with ${UPDATE_WORKING_MEMORY_TOOL}):\n` +
    JSON.stringify(profile)
  );
}

/**
 * `update_working_memory`: the model sets fields of the user's profile (the agent's schema, every
 * field optional; a field set to `null` is cleared). Shown to every later turn; its metadata names the
 * fields changed, which the run says as a `working_memory_updated` event.
 */
export class UpdateWorkingMemoryTool extends BaseConnectorTool<z.ZodObject> {
  readonly name = UPDATE_WORKING_MEMORY_TOOL;
  readonly description =
    'Updates what you keep about this user across conversations (their profile): give only the fields that ' +
    'changed; null clears a field. The profile is shown to you at the start of every turn.';
  readonly parameters: z.ZodObject;
  readonly #memory: WorkingMemory;

  constructor(memory: WorkingMemory) {
    super();
    this.#memory = memory;
    const fields = Object.fromEntries(
      Object.entries(memory.schema.shape).map(([key, field]) => [
        key,
        (field as z.ZodType).nullable().optional(),
      ]),
    );
    this.parameters = z.object(fields);
  }

  async run(context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const resource = context.memoryResource;
    if (resource === undefined)
      return { text: 'No memory is kept for this conversation.', metadata: { working_memory_updated: [] } };
    const profile = await readWorkingMemory(this.#memory.store, resource);
    for (const [key, value] of Object.entries(args)) {
      if (value === null) delete profile[key];
      else if (value !== undefined) profile[key] = value;
    }
    await writeWorkingMemory(this.#memory.store, resource, profile);
    return {
      text: `Working memory updated: ${JSON.stringify(profile)}`,
      metadata: { working_memory_updated: Object.keys(args).filter((key) => args[key] !== undefined) },
    };
  }
}
