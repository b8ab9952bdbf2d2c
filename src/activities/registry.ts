import type { RunTimeouts, ToolSchema } from '../common/index.ts';
import { validateContextOptions } from '../context/options.ts';
import { checkCaching } from '../caching/check.ts';
import { ConfigurationError } from '../errors.ts';
import { McpAgentTools } from '../mcp/agent-tools.ts';
import { validateMcpServers } from '../mcp/options.ts';
import { McpConnectionPool } from '../mcp/pool.ts';
import { searchableMcpSchemas } from '../mcp/run-tools.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { ModelAdapter } from '../models/model-adapter.ts';
import { toModelAdapter } from '../models/to-adapter.ts';
import { DEFAULT_SKILL_LISTING_CHARS } from '../skills/options.ts';
import { FileSkillRegistry } from '../skills/registry.ts';
import { DEFAULT_SKILL_MATCH_LIMIT } from '../skills/selection.ts';
import { assertValidTool, type BaseConnectorTool } from '../tools/connector-base.ts';
import { TOOL_SEARCH_NAME, ToolSearchTool } from '../tools/tool-search.ts';
import { DEFAULT_MAX_TOOL_OUTPUT_CHARS, DEFAULT_TIMEOUTS } from './agent-defaults.ts';
import type { AgentDefinition } from '../agent/definition.ts';
import type { AgentRegistry, AgentSkillSettings, RegisteredAgent } from './registered-agent.ts';
import { resolveApproval } from './approval.ts';
import { resolveAuthorization } from '../authorization/options.ts';
import { resolveLiveText } from './live-text.ts';
import { addSkillActivationTools } from './skill-activation.ts';
import { positive } from './limits-check.ts';
import { delegationTools, withInlineSubAgents } from '../subagents/definitions.ts';

export { positive } from './limits-check.ts';
import { toOutputSpec } from '../output/schema.ts';
import { validateQuotas, type Quotas } from '../usage/quotas.ts';
import type { UsageStore } from '../usage/types.ts';
import type { LiveTextChannel } from '../live-text/channel.ts';
import { mcpServerQueues, toolQueues, type RateLimitedQueue } from '../rate-limits/queues.ts';
import { resolveFastTools } from '../fast-tools/resolve.ts';
import { registerGuardrails } from '../guardrails/registered.ts';
import { registerMemory } from '../agent-memory/registered.ts';
import { RecallMemoryTool } from '../agent-memory/recall-tool.ts';
import { UpdateWorkingMemoryTool } from '../agent-memory/working-memory.ts';
import type { LongTermMemory } from '../long-term-memory/long-term-memory.ts';

/** Validates every definition (tool names, duplicates, limits) so mistakes fail at start-up, not mid-run. */
export function buildAgentRegistry(
  agents: Record<string, AgentDefinition>,
  defaultMemoryStore: MemoryStore,
  mcpPool: McpConnectionPool = new McpConnectionPool(),
  rateLimited?: ReadonlyMap<string, RateLimitedQueue>,
  usage?: { store: UsageStore; fleet?: Quotas },
  liveChannel?: LiveTextChannel,
  longTermMemory?: LongTermMemory,
): AgentRegistry {
  const registry = new Map<string, RegisteredAgent>();
  for (const [name, definition] of Object.entries(withInlineSubAgents(agents))) {
    const llm = toModelAdapter(definition?.llm, `Agent "${name}"`);
    const models = new Map<string, ModelAdapter>([[llm.modelId, llm]]);
    for (const [modelName, model] of Object.entries(definition.models ?? {})) {
      models.set(modelName, toModelAdapter(model, `Agent "${name}", model "${modelName}"`));
    }
    const tools = new Map<string, BaseConnectorTool>();
    const schemas = new Map<string, ToolSchema>();
    for (const tool of definition.tools ?? []) {
      assertValidTool(tool);
      if (tools.has(tool.name)) {
        throw new ConfigurationError(
          `Agent "${name}" has two tools named "${tool.name}"; tool names must be unique.`,
        );
      }
      tools.set(tool.name, tool);
      schemas.set(tool.name, tool.schema());
    }
    const builtinTools = new Map<string, BaseConnectorTool>();
    const timeouts = { ...DEFAULT_TIMEOUTS, ...definition.timeouts };
    const mcp = mcpTools(
      name,
      definition,
      mcpPool,
      timeouts,
      (tool) => tools.has(tool) || builtinTools.has(tool),
    );
    const initialTools = withToolSearch(name, definition.toolSearch, tools, schemas, mcp);
    for (const tool of definition.builtinTools ?? []) {
      assertValidTool(tool);
      if (tools.has(tool.name) || builtinTools.has(tool.name)) {
        throw new ConfigurationError(
          `Agent "${name}" has two tools named "${tool.name}"; tool names must be unique.`,
        );
      }
      builtinTools.set(tool.name, tool);
      schemas.set(tool.name, tool.schema());
    }
    const { maxIterations } = definition;
    if (maxIterations !== undefined && (!Number.isInteger(maxIterations) || maxIterations < 1)) {
      throw new ConfigurationError(`Agent "${name}": maxIterations must be a whole number of at least 1.`);
    }
    validateContextOptions(name, definition.context);
    const skills = skillSettings(name, definition);
    addSkillActivationTools(name, skills, tools, builtinTools, initialTools, schemas);
    const delegation = delegationTools(name, definition, schemas);
    for (const tool of [...(delegation.subAgents?.keys() ?? []), ...(delegation.handoffs?.keys() ?? [])])
      initialTools.push(tool);
    const memoryStore = definition.memoryStore ?? defaultMemoryStore;
    const agentUsage = usage && {
      store: usage.store,
      ...(usage.fleet ? { fleet: usage.fleet } : {}),
      ...(definition.quotas ? { own: validateQuotas(`Agent "${name}"`, definition.quotas) } : {}),
    };
    const memory = registerMemory(name, definition.memory, longTermMemory, memoryStore);
    if (memory?.mode === 'tool')
      addTool(name, new RecallMemoryTool(memory, agentUsage), tools, schemas, initialTools);
    if (memory?.working)
      addTool(name, new UpdateWorkingMemoryTool(memory.working), tools, schemas, initialTools);
    const queues = toolQueues([...tools.values(), ...builtinTools.values()], rateLimited);
    const mcpQueues = mcpServerQueues(mcp?.servers, rateLimited);
    const guardrails = registerGuardrails(name, definition.guardrails);
    registry.set(name, {
      name,
      models,
      defaultModel: llm.modelId,
      tools,
      schemas,
      initialTools,
      builtinTools,
      fastTools: resolveFastTools(name, definition.fastTools, tools, builtinTools),
      credentialStore: definition.credentialStore,
      memoryStore,
      ...(agentUsage ? { usage: agentUsage } : {}),
      systemPrompt: definition.systemPrompt,
      maxIterations,
      skills,
      maxToolOutputChars: definition.maxToolOutputChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS,
      timeouts,
      ...(mcp ? { mcp } : {}),
      timeoutMs: positive(name, 'timeoutMs', definition.timeoutMs),
      limits: definition.limits && {
        maxTotalTokens: positive(name, 'limits.maxTotalTokens', definition.limits.maxTotalTokens),
        maxToolCalls: positive(name, 'limits.maxToolCalls', definition.limits.maxToolCalls, true),
      },
      approval: resolveApproval(name, definition.approval, tools, builtinTools, [
        ...(delegation.subAgents?.keys() ?? []),
      ]),
      textDeltaBatchMs: resolveLiveText(name, definition.liveText),
      ...(liveChannel ? { liveChannel } : {}),
      output: toOutputSpec(definition.output, definition.outputRepairs, `Agent "${name}"`),
      context: definition.context,
      caching: checkCaching(`Agent "${name}"`, definition.caching),
      ...delegation,
      authorization: resolveAuthorization(name, definition.authorization),
      ...(queues ? { toolQueues: queues } : {}),
      ...(mcpQueues ? { mcpQueues } : {}),
      ...(guardrails ? { guardrails } : {}),
      ...(memory ? { memory } : {}),
    });
  }
  checkHandoffStores(registry);
  return registry;
}

/** A handoff continues the conversation in the target's memory store: targets on this worker must share it. */
function checkHandoffStores(registry: Map<string, RegisteredAgent>): void {
  for (const agent of registry.values()) {
    for (const { agent: target } of agent.handoffs?.values() ?? []) {
      const other = registry.get(target);
      if (other && other.memoryStore !== agent.memoryStore) {
        throw new ConfigurationError(
          `Agent "${agent.name}" hands off to "${target}", which keeps conversations in another memory store. ` +
            "Give both the same memoryStore (or leave both on the worker's).",
        );
      }
    }
  }
}

/**
 * Adds a tool the memory option gives the agent (`recall_memory`, `update_working_memory`), refusing
 * one of the agent's own by that name.
 */
function addTool(
  agent: string,
  tool: BaseConnectorTool,
  tools: Map<string, BaseConnectorTool>,
  schemas: Map<string, ToolSchema>,
  initialTools: string[],
): void {
  if (tools.has(tool.name))
    throw new ConfigurationError(
      `Agent "${agent}" has its own tool named "${tool.name}", which its memory option adds; rename it.`,
    );
  tools.set(tool.name, tool);
  schemas.set(tool.name, tool.schema());
  initialTools.push(tool.name);
}

/** The agent's MCP servers, checked now so that a bad entry fails at start-up. */
function mcpTools(
  agent: string,
  definition: AgentDefinition,
  pool: McpConnectionPool,
  timeouts: RunTimeouts,
  isTaken: (name: string) => boolean,
): McpAgentTools | undefined {
  const servers = definition.mcpServers;
  if (!servers || Object.keys(servers).length === 0) return undefined;
  validateMcpServers(agent, servers);
  return new McpAgentTools({
    agent,
    servers,
    pool,
    credentialStore: definition.credentialStore,
    callTimeoutMs: timeouts.toolStartToCloseMs,
    isTaken: (name) => name === TOOL_SEARCH_NAME || isTaken(name),
  });
}

/** The skill options of a definition, checked. */
function skillSettings(name: string, definition: AgentDefinition): AgentSkillSettings {
  const matchLimit = definition.skillMatchLimit ?? DEFAULT_SKILL_MATCH_LIMIT;
  if (!Number.isInteger(matchLimit) || matchLimit < 0) {
    throw new ConfigurationError(`Agent "${name}": skillMatchLimit must be a whole number of at least 0.`);
  }
  const listingChars = definition.skillListingChars ?? DEFAULT_SKILL_LISTING_CHARS;
  if (!Number.isInteger(listingChars) || listingChars < 0) {
    throw new ConfigurationError(`Agent "${name}": skillListingChars must be a whole number of at least 0.`);
  }
  const activation = definition.skillActivation;
  if (activation !== undefined && !['triggers', 'model', 'both'].includes(activation)) {
    throw new ConfigurationError(
      `Agent "${name}": skillActivation must be 'triggers', 'model' or 'both' (got ${JSON.stringify(activation)}).`,
    );
  }
  return {
    registry: definition.skillRegistry ?? new FileSkillRegistry(definition.skillSource),
    fixed: definition.skills ?? [],
    defaultSkillIds: definition.defaultSkillIds ?? [],
    autoUse: definition.autoUseSkills ?? false,
    matchLimit,
    projectRoot:
      definition.autoProjectSkills === false ? undefined : (definition.projectRoot ?? process.cwd()),
    activation,
    listingChars,
  };
}

/** Adds `tool_search` when asked for, and answers the names the model sees first. */
function withToolSearch(
  agent: string,
  option: AgentDefinition['toolSearch'],
  tools: Map<string, BaseConnectorTool>,
  schemas: Map<string, ToolSchema>,
  mcp: McpAgentTools | undefined,
): string[] {
  if (!option) return [...tools.keys()];
  if (tools.has(TOOL_SEARCH_NAME)) {
    throw new ConfigurationError(
      `Agent "${agent}" has its own tool named "${TOOL_SEARCH_NAME}"; rename it or turn toolSearch off.`,
    );
  }
  const alwaysLoaded = option === true ? [] : (option.alwaysLoaded ?? []);
  const unknown = alwaysLoaded.filter((name) => !tools.has(name));
  if (unknown.length > 0) {
    throw new ConfigurationError(
      `Agent "${agent}": toolSearch.alwaysLoaded names tools it does not have: ${unknown.join(', ')}.`,
    );
  }
  const search = new ToolSearchTool(
    [...schemas.values()],
    mcp && ((context) => searchableMcpSchemas({ mcp }, context.tenant, context.secrets)),
  );
  tools.set(search.name, search);
  schemas.set(search.name, search.schema());
  return [search.name, ...alwaysLoaded];
}

/** The model a run names (or the agent's default); a clear error for a name the worker does not know. */
export function lookupModel(agent: RegisteredAgent, name: string | undefined): ModelAdapter {
  const model = agent.models.get(name ?? agent.defaultModel);
  if (!model) {
    throw new ConfigurationError(
      `Agent "${agent.name}" has no model named "${name}" (it has: ${[...agent.models.keys()].join(', ')}).`,
    );
  }
  return model;
}

/** The agent a run names; a clear, non-retryable error when this worker does not know it. */
export function lookupAgent(registry: AgentRegistry, name: string): RegisteredAgent {
  const agent = registry.get(name);
  if (!agent) {
    const known = [...registry.keys()].map((key) => `"${key}"`).join(', ') || 'none';
    throw new ConfigurationError(
      `No agent named "${name}" is registered on this worker (registered: ${known}). ` +
        'Start the run on the task queue of a worker that registers it.',
    );
  }
  return agent;
}
