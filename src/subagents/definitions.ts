import type { ToolSchema } from '../common/messages.ts';
import { ConfigurationError } from '../errors.ts';
import { toOutputJsonSchema } from '../output/schema.ts';
import type { AgentDefinition, SubAgentSpec } from '../agent/definition.ts';
import { positive } from '../activities/limits-check.ts';
import { remoteA2aDefinition } from '../a2a/remote-agent-tool.ts';
import {
  DEFAULT_MAX_SUB_AGENT_DEPTH,
  HANDOFF_TOOL_PREFIX,
  SUB_AGENT_TOOL_PREFIX,
  type ResolvedHandoff,
  type ResolvedSubAgent,
} from './types.ts';

const NAME = /^[a-zA-Z0-9_-]{1,48}$/;

/** The agent an inline sub-agent definition is registered as: its `agent`, else `<parent>.<name>`. */
export function inlineAgentName(parent: string, name: string, spec: SubAgentSpec): string {
  return spec.agent ?? `${parent}.${name}`;
}

/**
 * The worker's agents with the inline sub-agent definitions (`subAgents: { x: { definition } }`)
 * added, recursively, so that each child run finds its agent on this worker. A name defined twice
 * with different definitions is a ConfigurationError.
 */
export function withInlineSubAgents(
  agents: Record<string, AgentDefinition>,
): Record<string, AgentDefinition> {
  const all: Record<string, AgentDefinition> = { ...agents };
  // An inline sub-agent without guardrails of its own runs its parent's (one copy per definition).
  const inheriting = new Map<AgentDefinition, AgentDefinition>();
  const withGuardrailsOf = (parent: AgentDefinition, own: AgentDefinition): AgentDefinition => {
    if (own.guardrails !== undefined || parent.guardrails === undefined) return own;
    const copy = inheriting.get(own) ?? { ...own, guardrails: parent.guardrails };
    inheriting.set(own, copy);
    return copy;
  };
  const visit = (parent: string, definition: AgentDefinition): void => {
    for (const [name, spec] of Object.entries(definition.subAgents ?? {})) {
      if (typeof spec === 'string' || !(spec?.definition || spec?.a2a)) continue;
      const where = `Agent "${parent}", sub-agent "${name}"`;
      const own = withGuardrailsOf(
        definition,
        spec.definition ?? remoteA2aDefinition(where, spec.a2a!, definition.credentialStore),
      );
      const agent = inlineAgentName(parent, name, spec);
      const known = all[agent];
      if (known === own) continue;
      if (known) {
        throw new ConfigurationError(
          `Agent "${parent}": sub-agent "${name}" defines agent "${agent}", which another definition already uses. ` +
            'Give one of them another `agent` name.',
        );
      }
      all[agent] = own;
      visit(agent, own);
    }
  };
  for (const [name, definition] of Object.entries(agents)) visit(name, definition);
  return all;
}

/**
 * The delegation tools of one agent: `agent_<name>` per sub-agent and `transfer_to_<name>` per
 * handoff, their schemas added to `schemas`. Names must be tool-name safe and not taken by another
 * tool of the agent.
 */
export function delegationTools(
  agent: string,
  definition: AgentDefinition,
  schemas: Map<string, ToolSchema>,
): {
  subAgents?: Map<string, ResolvedSubAgent>;
  handoffs?: Map<string, ResolvedHandoff>;
  maxSubAgentDepth?: number;
} {
  const add = (tool: string, description: string, parameters: Record<string, unknown>): void => {
    if (schemas.has(tool)) {
      throw new ConfigurationError(
        `Agent "${agent}" has two tools named "${tool}"; rename the tool or the sub-agent.`,
      );
    }
    schemas.set(tool, { type: 'function', function: { name: tool, description, parameters } });
  };
  const checkName = (name: string, option: string): void => {
    if (!NAME.test(name)) {
      throw new ConfigurationError(
        `Agent "${agent}": ${option} name "${name}" must be 1-48 letters, digits, "_" or "-" (it becomes a tool name).`,
      );
    }
  };
  const subAgents = new Map<string, ResolvedSubAgent>();
  for (const [name, entry] of Object.entries(definition.subAgents ?? {})) {
    checkName(name, 'subAgents');
    const spec: SubAgentSpec = typeof entry === 'string' ? { agent: entry } : (entry ?? {});
    if (!spec.agent && !spec.definition && !spec.a2a) {
      throw new ConfigurationError(
        `Agent "${agent}": sub-agent "${name}" needs \`agent\` (a served agent's name), \`a2a\` (a remote agent's URL) or \`definition\`.`,
      );
    }
    const target = spec.definition || spec.a2a ? inlineAgentName(agent, name, spec) : spec.agent!;
    const tool = `${SUB_AGENT_TOOL_PREFIX}${name}`;
    const parameters = spec.input
      ? toOutputJsonSchema(spec.input, `Agent "${agent}", sub-agent "${name}" input`)
      : TASK_PARAMETERS;
    add(
      tool,
      spec.description ??
        `Delegates a task to the "${name}" agent, which works on it with its own tools and context and answers with its result.`,
      parameters,
    );
    subAgents.set(tool, { name, agent: target, ...(spec.input ? { structuredInput: true } : {}) });
  }
  const handoffs = new Map<string, ResolvedHandoff>();
  for (const name of definition.handoffs ?? []) {
    checkName(name, 'handoffs');
    const tool = `${HANDOFF_TOOL_PREFIX}${name}`;
    add(
      tool,
      `Hands this conversation over to the "${name}" agent, which answers from now on. Use it when the request is theirs.`,
      HANDOFF_PARAMETERS,
    );
    // A handoff to one of the agent's own sub-agents goes to the agent that sub-agent runs.
    const sub = subAgents.get(`${SUB_AGENT_TOOL_PREFIX}${name}`);
    handoffs.set(tool, { name, agent: sub?.agent ?? name });
  }
  const depth = positive(agent, 'maxSubAgentDepth', definition.maxSubAgentDepth, true);
  return {
    ...(subAgents.size ? { subAgents } : {}),
    ...(handoffs.size ? { handoffs } : {}),
    ...(subAgents.size ? { maxSubAgentDepth: depth ?? DEFAULT_MAX_SUB_AGENT_DEPTH } : {}),
  };
}

const TASK_PARAMETERS = {
  type: 'object',
  properties: {
    task: {
      type: 'string',
      description: 'The task, with everything the agent needs to know: it does not see this conversation.',
    },
  },
  required: ['task'],
  additionalProperties: false,
};

const HANDOFF_PARAMETERS = {
  type: 'object',
  properties: { reason: { type: 'string', description: 'Why the conversation is handed over.' } },
  additionalProperties: false,
};
