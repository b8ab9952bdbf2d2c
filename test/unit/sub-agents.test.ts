import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildAgentRegistry } from '../../src/activities/registry.ts';
import type { AgentEvent } from '../../src/common/events.ts';
import { ConfigurationError } from '../../src/errors.ts';
import { InMemoryMemoryStore } from '../../src/memory/in-memory.ts';
import { ScriptedModel } from '../../src/models/scripted.ts';
import { withChildEvents } from '../../src/subagents/child-events.ts';
import { parseCursor } from '../../src/subagents/event-cursor.ts';
import { withInlineSubAgents } from '../../src/subagents/definitions.ts';
import { treeLines } from '../../src/subagents/run-tree.ts';
import { childLimits, limitsLeft } from '../../src/subagents/workflow-limits.ts';
import { listQuery } from '../../src/visibility/list.ts';
import { runSummary } from '../../src/visibility/summary.ts';
import { AddTool } from '../integration/tools.ts';

const llm = () => new ScriptedModel([]);
const store = new InMemoryMemoryStore();

describe('sub-agent and handoff tools in the registry', () => {
  it('offers agent_<name> and transfer_to_<name> tools, registers inline definitions, caps depth at 3', () => {
    const billing = { llm: llm(), output: z.object({ refund: z.boolean() }) };
    const registry = buildAgentRegistry(
      {
        triage: {
          llm: llm(),
          tools: [new AddTool()],
          subAgents: {
            billing: { definition: billing, description: 'Refunds' },
            search: 'search',
            typed: { agent: 'search', input: z.object({ query: z.string() }) },
          },
          handoffs: ['billing', 'search'],
          approval: { tools: ['agent_search'] },
        },
        search: { llm: llm() },
      },
      store,
    );
    expect([...registry.keys()]).toEqual(['triage', 'search', 'triage.billing']);
    const triage = registry.get('triage')!;
    expect(triage.initialTools).toEqual([
      'add',
      'agent_billing',
      'agent_search',
      'agent_typed',
      'transfer_to_billing',
      'transfer_to_search',
    ]);
    expect(Object.fromEntries(triage.subAgents!)).toEqual({
      agent_billing: { name: 'billing', agent: 'triage.billing' },
      agent_search: { name: 'search', agent: 'search' },
      agent_typed: { name: 'typed', agent: 'search', structuredInput: true },
    });
    // A handoff to one of its sub-agents goes to that sub-agent's agent.
    expect(triage.handoffs!.get('transfer_to_billing')).toEqual({ name: 'billing', agent: 'triage.billing' });
    expect(triage.maxSubAgentDepth).toBe(3);
    expect(triage.schemas.get('agent_billing')!.function).toMatchObject({
      description: 'Refunds',
      parameters: { required: ['task'] },
    });
    expect(triage.schemas.get('agent_typed')!.function.parameters).toMatchObject({
      properties: { query: { type: 'string' } },
    });
    expect(triage.approval).toMatchObject({ tools: ['agent_search'] });
    expect(registry.get('triage.billing')!.output).toBeDefined();
  });

  it('refuses what cannot work, at start-up, saying what to change', () => {
    const build = (agents: Parameters<typeof buildAgentRegistry>[0]) => () =>
      buildAgentRegistry(agents, store);
    expect(build({ a: { llm: llm(), subAgents: { 'bad name': 'b' } } })).toThrow(/letters, digits/);
    expect(build({ a: { llm: llm(), subAgents: { b: {} } } })).toThrow(/needs `agent`.*or `definition`/);
    expect(build({ a: { llm: llm(), maxSubAgentDepth: -1, subAgents: { b: 'b' } } })).toThrow(
      /maxSubAgentDepth must be a whole number/,
    );
    expect(
      build({
        a: { llm: llm(), handoffs: ['b'] },
        b: { llm: llm(), memoryStore: new InMemoryMemoryStore() },
      }),
    ).toThrow(ConfigurationError);
    expect(() =>
      withInlineSubAgents({
        a: { llm: llm(), subAgents: { x: { agent: 'shared', definition: { llm: llm() } } } },
        b: { llm: llm(), subAgents: { x: { agent: 'shared', definition: { llm: llm() } } } },
      }),
    ).toThrow(/defines agent "shared", which another definition already uses/);
  });
});

describe('limits that flow down', () => {
  it("caps a child's own limits by what its parent has left", () => {
    expect(childLimits({ maxTotalTokens: 500 }, { maxTotalTokens: 100, maxToolCalls: 2 })).toEqual({
      maxTotalTokens: 100,
      maxToolCalls: 2,
    });
    expect(childLimits(undefined, undefined)).toBeUndefined();
    const used = { input_tokens: 30, output_tokens: 30, total_tokens: 60 };
    expect(limitsLeft({ maxTotalTokens: 100, maxToolCalls: 3 }, used, 1)).toEqual({
      maxTotalTokens: 40,
      maxToolCalls: 2,
    });
    expect(limitsLeft({ maxTotalTokens: 50 }, used, 0)).toEqual({ maxTotalTokens: 1 });
    expect(limitsLeft(undefined, used, 0)).toBeUndefined();
  });
});

function event(seq: number, type: AgentEvent['type'], payload: Record<string, unknown> = {}): AgentEvent {
  return { seq, type, message: type, payload, timestamp: new Date(0).toISOString() };
}

async function* slowly(events: AgentEvent[], ms = 5): AsyncGenerator<AgentEvent> {
  for (const e of events) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    yield e;
  }
}

/** A run's log read after a seq, as the events query reads it. */
const after = (events: AgentEvent[], ms?: number) => (afterSeq: number) =>
  slowly(
    events.filter((e) => e.seq > afterSeq),
    ms,
  );

describe('one stream: children woven into the parent', () => {
  const streams: Record<string, AgentEvent[]> = {
    'p/c1': [
      event(1, 'run_started'),
      event(2, 'tool_called', { tool: 'agent_leaf', child_run: 'p/c1/g1', child_agent: 'leaf' }),
      event(3, 'tool_completed', { tool: 'agent_leaf', child_run: 'p/c1/g1' }),
      event(4, 'run_completed'),
    ],
    'p/c1/g1': [event(1, 'run_started'), event(2, 'run_completed')],
    'p/c2': [event(1, 'run_started'), event(2, 'run_completed')],
  };
  const parent = [
    event(1, 'tool_called', { tool: 'agent_mid', child_run: 'p/c1', child_agent: 'mid' }),
    event(2, 'tool_called', { tool: 'agent_gone', child_run: 'p/c2', child_agent: 'gone' }),
    event(3, 'tool_completed', { child_run: 'p/c1' }),
    event(4, 'tool_failed', { child_run: 'p/c2' }),
    event(5, 'run_completed'),
  ];
  const open = (id: string, afterSeq: number) =>
    id === 'p/c2'
      ? (async function* () {
          if (afterSeq < 1) yield streams[id]![0]!;
          throw new Error('the child failed');
        })()
      : after(streams[id]!, 3)(afterSeq);
  const show = (e: AgentEvent) =>
    `${(e.payload.sub_run as string | undefined) ?? 'p'}:${(e.payload.depth as number | undefined) ?? 0}:${e.type}`;
  const read = async (from?: string) => {
    const merged: AgentEvent[] = [];
    for await (const e of withChildEvents(after(parent, 1), open, parseCursor(from))) merged.push(e);
    return merged;
  };

  it("tags each child event with its run, puts a child's events right after its call, nests", async () => {
    const merged = await read();
    expect(merged.map(show)).toEqual([
      'p:0:tool_called',
      'p/c1:1:run_started',
      'p/c1:1:tool_called',
      'p/c1/g1:2:run_started',
      'p/c1/g1:2:run_completed',
      'p/c1:1:tool_completed',
      'p/c1:1:run_completed',
      'p:0:tool_called',
      'p/c2:1:run_started',
      'p:0:tool_completed',
      'p:0:tool_failed',
      'p:0:run_completed',
    ]);
    expect(merged.find((e) => e.payload.sub_run === 'p/c1/g1')!.payload.agent).toBe('leaf');
    expect(merged.find((e) => e.payload.sub_run === 'p/c1')!.payload.agent).toBe('mid');
  });

  it('gives every event an increasing cursor; resuming after any cursor yields the rest exactly', async () => {
    const merged = await read();
    const cursors = merged.map((e) => e.cursor!);
    expect(cursors).toEqual(['1', '1/1', '1/2', '1/2/1', '1/2/2', '1/3', '1/4', '2', '2/1', '3', '4', '5']);
    const order = (a: string, b: string) => {
      const [x, y] = [parseCursor(a), parseCursor(b)];
      for (let i = 0; i < Math.max(x.length, y.length); i++) {
        if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
      }
      return 0;
    };
    expect([...cursors].sort(order)).toEqual(cursors);
    for (const [i, cursor] of cursors.entries()) {
      const rest = await read(cursor);
      expect(rest.map((e) => e.cursor)).toEqual(cursors.slice(i + 1));
      expect(rest.map(show)).toEqual(merged.slice(i + 1).map(show));
    }
  });

  it('refuses a cursor that is not seqs joined by "/"', () => {
    expect(() => parseCursor('12/x')).toThrow(/An event cursor is positive seqs joined by "\/".*"12\/x"/);
  });

  it("rethrows the parent stream's failure after what it yielded", async () => {
    const failing = async function* (): AsyncGenerator<AgentEvent> {
      yield event(1, 'run_started');
      throw new Error('the run failed');
    };
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const e of withChildEvents(failing, () => slowly([]))) seen.push(e.type);
      })(),
    ).rejects.toThrow('the run failed');
    expect(seen).toEqual(['run_started']);
  });
});

describe('sub-agent runs in Temporal', () => {
  it('lists top-level runs only with topLevel, summarizes a child with its parent, prints a tree', () => {
    expect(listQuery('q', { topLevel: true })).toContain('ParentWorkflowId IS NULL');
    expect(listQuery('q', {})).not.toContain('ParentWorkflowId');
    expect(runSummary({ agent: 'billing', kind: 'sub-agent run', parent: 'triage' })).toBe(
      'billing sub-agent run · for triage',
    );
    const leaf = { workflowId: 'p/a/x', agent: 'x', status: 'running', children: [] };
    expect(
      treeLines([
        { workflowId: 'p/a', agent: 'a', status: 'completed', children: [leaf] },
        { workflowId: 'p/b', agent: 'b', status: 'failed', children: [] },
      ]),
    ).toEqual(['├─ a  p/a  completed', '│  └─ x  p/a/x  running', '└─ b  p/b  failed']);
  });
});
