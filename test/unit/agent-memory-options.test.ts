import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerMemory, resourceOf, scopedResource } from '../../src/agent-memory/registered.ts';
import type { AgentMemoryOptions } from '../../src/agent-memory/options.ts';
import { InMemoryLongTermStore } from '../../src/long-term-memory/in-memory.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { buildAgentRegistry } from '../../src/activities/registry.ts';
import { LongTermMemory } from '../../src/long-term-memory/long-term-memory.ts';
import { McpConnectionPool } from '../../src/mcp/pool.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';

const store = new InMemoryLongTermStore();
const memoryStore = new InMemoryMemoryStore();
const register = (option: Partial<AgentMemoryOptions>) =>
  registerMemory('desk', option as AgentMemoryOptions, undefined, memoryStore);

describe('the memory option of an agent definition', () => {
  it('refuses what cannot work, naming the field and what to give', () => {
    expect(() => register({ store })).toThrow(/Agent "desk": memory.resource must be a function/);
    expect(() => register({ resource: () => 'u' })).toThrow(
      /Agent "desk": memory has no store: give memory.store .* or createAgentWorker's longTermMemory/,
    );
    expect(() => register({ store, resource: () => 'u', recall: { limit: 0 } })).toThrow(
      /memory.recall.limit must be a whole number from 1 to 50; got 0/,
    );
    expect(() => register({ store, resource: () => 'u', recall: { mode: 'always' as never } })).toThrow(
      /memory.recall.mode must be 'auto' or 'tool'; got "always"/,
    );
    expect(() => register({ store, resource: () => 'u', workingMemory: { name: 'x' } as never })).toThrow(
      /memory.workingMemory must be a zod object schema/,
    );
    expect(() => register({ store, resource: () => 'u', observe: { everyTurns: 0 } })).toThrow(
      /memory.observe.everyTurns must be a whole number from 1 to 1000; got 0/,
    );
  });

  it('takes a bare store or a LongTermMemory, with defaults limit 5 and auto', () => {
    const memory = register({ store, resource: () => 'u', workingMemory: z.object({ name: z.string() }) })!;
    expect(memory).toMatchObject({ limit: 5, mode: 'auto', working: { store: memoryStore } });
    expect(memory.observeEveryTurns).toBeUndefined();
    expect(register({ store, resource: () => 'u', observe: true })!.observeEveryTurns).toBe(10);
  });

  it("scopes a tenant's resource to the tenant, and refuses a resource that is not a non-empty string", () => {
    const memory = register({ store, resource: ({ sessionId }) => sessionId })!;
    expect(resourceOf(memory, { agent: 'desk', workflowId: 'w', sessionId: 'u1' })).toBe('u1');
    expect(resourceOf(memory, { agent: 'desk', workflowId: 'w', sessionId: 'u1', tenant: 'acme' })).toBe(
      'tenant:acme/u1',
    );
    expect(resourceOf(memory, { agent: 'desk', workflowId: 'w' })).toBeUndefined();
    expect(() => resourceOf(memory, { agent: 'desk', workflowId: 'w', sessionId: ' ' })).toThrow(
      /memory.resource answered " "; answer a non-empty string, or undefined/,
    );
    expect(() => scopedResource('tenant:acme/u1', undefined)).toThrow(/kept for tenants' resources/);
  });

  it("uses the worker's long-term memory for an agent that names no store, and gives the tools each mode needs", () => {
    const workerMemory = new LongTermMemory({ store: new InMemoryLongTermStore() });
    const own = new InMemoryLongTermStore();
    const registry = buildAgentRegistry(
      {
        plain: { llm: new ScriptedModel([]), memory: { resource: () => 'u' } },
        tooled: {
          llm: new ScriptedModel([]),
          memory: {
            store: own,
            resource: () => 'u',
            recall: { mode: 'tool' },
            workingMemory: z.object({ name: z.string() }),
          },
        },
      },
      memoryStore,
      new McpConnectionPool(),
      undefined,
      undefined,
      undefined,
      workerMemory,
    );
    expect(registry.get('plain')!.memory!.memory).toBe(workerMemory);
    expect(registry.get('plain')!.initialTools).toEqual([]);
    expect(registry.get('tooled')!.memory!.memory).not.toBe(workerMemory);
    expect(registry.get('tooled')!.initialTools).toEqual(['recall_memory', 'update_working_memory']);
  });
});
