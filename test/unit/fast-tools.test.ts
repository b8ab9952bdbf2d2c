import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildAgentRegistry } from '../../src/activities/registry.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { BaseConnectorTool, type ToolOutput } from '../../src/tools/connector-base.ts';
import { builtinTools } from '../../src/tools/builtins/index.ts';
import { AGENT_WORKER_SLOTS, concurrencyDefaults } from '../../src/worker-concurrency.ts';

class LookupTool extends BaseConnectorTool {
  readonly name: string = 'lookup';
  readonly description = 'Looks a key up';
  readonly parameters = z.object({ key: z.string() });
  async run(): Promise<ToolOutput> {
    return { text: 'value', metadata: {} };
  }
}

class TableTool extends LookupTool {
  override readonly name = 'table';
  override readonly fast = true;
}

const registryOf = (definition: Record<string, unknown>) =>
  buildAgentRegistry(
    { agent: { llm: new ScriptedModel([{ text: 'hi' }]), ...definition } },
    new InMemoryMemoryStore(),
  ).get('agent')!;

describe('fast tools', () => {
  it('are the tools that declare fast (field or constructor option) and those fastTools names', () => {
    expect(new LookupTool().fast).toBe(false);
    expect(new LookupTool({ fast: true }).fast).toBe(true);
    expect(new TableTool().fast).toBe(true);
    const agent = registryOf({
      tools: [new LookupTool(), new TableTool()],
      fastTools: ['lookup'],
    });
    expect(agent.fastTools.sort()).toEqual(['lookup', 'table']);
    expect(registryOf({ tools: [new LookupTool()] }).fastTools).toEqual([]);
  });

  it('include the built-ins that only touch the project folder or the plan', () => {
    const agent = registryOf({ builtinTools: builtinTools() });
    expect(agent.fastTools.sort()).toEqual([
      'edit_file',
      'glob_files',
      'grep_files',
      'plan_task',
      'read_file',
      'workspace_files',
      'write_file',
    ]);
  });

  it('refuses fastTools that is not a list, or names a tool the agent does not have', () => {
    expect(() => registryOf({ tools: [new LookupTool()], fastTools: 'lookup' })).toThrow(
      /fastTools must be an array of tool names/,
    );
    expect(() => registryOf({ tools: [new LookupTool()], fastTools: ['lookup', 'mcp_search'] })).toThrow(
      /fastTools names "mcp_search", which is not one of its tools \(its own and built-in tools: lookup, .*MCP and sub-agent tools cannot be fast/,
    );
  });
});

describe('agent worker slots', () => {
  it('default to hundreds of activities and local activities, unless a tuner decides', () => {
    expect(concurrencyDefaults(undefined)).toEqual(AGENT_WORKER_SLOTS);
    expect(concurrencyDefaults({ maxCachedWorkflows: 10 })).toEqual(AGENT_WORKER_SLOTS);
    expect(AGENT_WORKER_SLOTS.maxConcurrentActivityTaskExecutions).toBeGreaterThanOrEqual(200);
    const tuner = { tunerHolder: true } as never;
    expect(concurrencyDefaults({ tuner })).toEqual({});
  });
});
