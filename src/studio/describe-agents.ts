import type { AgentDefinition } from '../agent/definition.ts';
import { toModelAdapter } from '../models/to-adapter.ts';

/** One agent as the studio shows it: what the worker serves, with no store, key or secret in it. */
export interface AgentDescription {
  name: string;
  model: string;
  systemPrompt?: string;
  tools: Array<{ name: string; description: string; parameters: Record<string, unknown>; approval: boolean }>;
  skills: string[];
  subAgents: Array<{ name: string; agent: string; description?: string }>;
  handoffs: string[];
  guardrails: { input: string[]; output: string[]; tool: string[] };
  memory?: { workingMemory: boolean; observe: boolean };
  caching?: unknown;
  mcpServers: string[];
  maxIterations?: number;
  quotas?: unknown;
}

/** What each of `agents` is, for the Agents view: its model, tools with their JSON Schemas, skills, sub-agents, guardrails, memory, caching. */
export function describeAgents(agents: Record<string, AgentDefinition>): AgentDescription[] {
  return Object.entries(agents).map(([name, agent]) => describeAgent(name, agent));
}

function describeAgent(name: string, agent: AgentDefinition): AgentDescription {
  const approvalTools = new Set(agent.approval?.tools ?? []);
  const named = (checks: Array<{ name: string } | ((...args: never[]) => unknown)> | undefined) =>
    (checks ?? []).map((check, i) => check.name || `check ${i + 1}`);
  const guardrails = agent.guardrails;
  return {
    name,
    model: modelName(agent),
    ...(agent.systemPrompt !== undefined ? { systemPrompt: agent.systemPrompt } : {}),
    tools: (agent.tools ?? []).map((tool) => {
      const { function: fn } = tool.schema();
      return {
        name: fn.name,
        description: fn.description,
        parameters: fn.parameters,
        approval: approvalTools.has(fn.name),
      };
    }),
    skills: (agent.skills ?? []).map((skill) => (typeof skill === 'string' ? skill : skill.name)),
    subAgents: Object.entries(agent.subAgents ?? {}).map(([call, spec]) =>
      typeof spec === 'string'
        ? { name: call, agent: spec }
        : {
            name: call,
            agent: spec.agent ?? call,
            ...(spec.description !== undefined ? { description: spec.description } : {}),
          },
    ),
    handoffs: agent.handoffs ?? [],
    guardrails: {
      input: named(guardrails?.input),
      output: named(guardrails?.output),
      tool: named(guardrails?.tools),
    },
    ...(agent.memory
      ? {
          memory: {
            workingMemory: agent.memory.workingMemory !== undefined,
            observe: Boolean(agent.memory.observe),
          },
        }
      : {}),
    ...(agent.caching !== undefined ? { caching: agent.caching } : {}),
    mcpServers: Object.keys(agent.mcpServers ?? {}),
    ...(agent.maxIterations !== undefined ? { maxIterations: agent.maxIterations } : {}),
    ...(agent.quotas !== undefined ? { quotas: agent.quotas } : {}),
  };
}

function modelName(agent: AgentDefinition): string {
  try {
    return toModelAdapter(agent.llm, 'studio').modelId;
  } catch {
    return 'unknown';
  }
}
