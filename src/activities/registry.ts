import type {
  ApprovalSettings,
  ResolvedApproval,
  RunLimits,
  RunTimeouts,
  ToolSchema,
} from '../common/index.ts';
import { resolveApproval } from './approval.ts';
import { resolveLiveText, type LiveTextOption } from './live-text.ts';
import { validateContextOptions } from '../context/options.ts';
import type { ContextOptions } from '../context/types.ts';
import type { CredentialStore } from '../credentials/types.ts';
import { ConfigurationError } from '../errors.ts';
import { McpAgentTools } from '../mcp/agent-tools.ts';
import { validateMcpServers, type McpServers } from '../mcp/options.ts';
import { McpConnectionPool } from '../mcp/pool.ts';
import { searchableMcpSchemas } from '../mcp/run-tools.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { ModelAdapter } from '../models/model-adapter.ts';
import { toModelAdapter, type LlmOption } from '../models/to-adapter.ts';
import { DEFAULT_SKILL_LISTING_CHARS, type SkillActivation, type SkillOptions } from '../skills/options.ts';
import { FileSkillRegistry } from '../skills/registry.ts';
import { DEFAULT_SKILL_MATCH_LIMIT } from '../skills/selection.ts';
import type { Skill } from '../skills/skill.ts';
import { assertValidTool, type BaseConnectorTool } from '../tools/connector-base.ts';
import { TOOL_SEARCH_NAME, ToolSearchTool } from '../tools/tool-search.ts';
import { addSkillActivationTools } from './skill-activation.ts';
import { toOutputSpec, type OutputSchema } from '../output/schema.ts';
import type { OutputSpec } from '../output/types.ts';

/** Everything a worker knows about one named agent: the parts with secrets and side effects. */
export interface AgentDefinition extends SkillOptions {
  /** The default model: an AI SDK provider model or a ModelAdapter. */
  llm: LlmOption;
  /** Further models a run may name (`model` in the run options), by name. */
  models?: Record<string, LlmOption>;
  tools?: BaseConnectorTool[];
  credentialStore?: CredentialStore;
  /** Where this agent's conversations live. Default: the worker's memory store. */
  memoryStore?: MemoryStore;
  systemPrompt?: string;
  /** Model iterations per run. Default 4. */
  maxIterations?: number;
  /** Characters of tool output given to the model. Default 20,000. */
  maxToolOutputChars?: number;
  timeouts?: Partial<RunTimeouts>;
  /**
   * Show the model only `tool_search` (and `alwaysLoaded` tools) at first; the tools a search finds
   * are given to the model from the next step on. For agents with many tools.
   */
  toolSearch?: boolean | { alwaysLoaded?: string[] };
  /** Built-in tools that selected skills may attach for a run; not shown to the model otherwise. */
  builtinTools?: BaseConnectorTool[];
  /**
   * MCP servers whose tools the agent offers, as `<server>_<tool>`: stdio servers
   * (`{ command, args?, env?, cwd? }`) and Streamable HTTP servers (`{ url, headers?, credentialKey? }`).
   * With `skillsOnly: true` a server's tools are offered only in runs whose skills name it in `mcps`.
   */
  mcpServers?: McpServers;
  /** Each run (each chat turn) ends with `stop_reason: 'deadline'` after this long, unless the run sets its own. */
  timeoutMs?: number;
  /** Budgets of each run (`stop_reason: 'budget'`); a run's own `limits` win field by field. */
  limits?: RunLimits;
  /** Tools that wait for a person's approval in this agent (instead of each tool's `needsApproval`). */
  approval?: ApprovalSettings;
  /**
   * Live text (`text_delta` events) while the model writes, sent in batches (default every 100 ms,
   * one history event per batch). `false` turns it off.
   */
  liveText?: LiveTextOption;
  /** Keeps long conversations inside the model's context window (budget and compaction). */
  context?: ContextOptions;
  /**
   * Every run answers with an object matching this schema (a zod schema or a JSON Schema object),
   * unless the run names its own `output`: `result.output` is then the parsed object.
   */
  output?: OutputSchema;
  /** How many times an answer that does not match `output` is sent back to the model. Default 2. */
  outputRepairs?: number;
}

/** An agent's skill settings, resolved. */
export interface AgentSkillSettings {
  registry: FileSkillRegistry;
  fixed: Array<string | Skill>;
  defaultSkillIds: string[];
  autoUse: boolean;
  matchLimit: number;
  /** Undefined when project discovery is off. */
  projectRoot: string | undefined;
  /** As set; undefined means `'both'` when the agent has skills of its own available, else `'triggers'`. */
  activation: SkillActivation | undefined;
  listingChars: number;
}

export const DEFAULT_MAX_ITERATIONS = 4;
/** The limit when skills are active and no limit was set (spec 8). */
export const SKILL_MAX_ITERATIONS = 8;
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 20_000;
export const DEFAULT_TIMEOUTS: RunTimeouts = {
  modelStartToCloseMs: 10 * 60_000,
  modelHeartbeatMs: 30_000,
  modelMaxAttempts: 6,
  toolStartToCloseMs: 5 * 60_000,
  toolHeartbeatMs: 30_000,
  toolMaxAttempts: 3,
  storeStartToCloseMs: 10_000,
  storeMaxAttempts: 10,
};

/** An agent definition checked once, when the worker is created. */
export interface RegisteredAgent {
  name: string;
  /** The models runs may name; `defaultModel` is used when a run names none. */
  models: Map<string, ModelAdapter>;
  defaultModel: string;
  tools: Map<string, BaseConnectorTool>;
  schemas: Map<string, ToolSchema>;
  /** The tools the model sees at the start of a run. */
  initialTools: string[];
  /** Built-in tools that skills may attach (their schemas are in `schemas` too). */
  builtinTools: Map<string, BaseConnectorTool>;
  credentialStore: CredentialStore | undefined;
  memoryStore: MemoryStore;
  systemPrompt: string | undefined;
  /** The limit the definition set, if it set one. */
  maxIterations: number | undefined;
  skills: AgentSkillSettings;
  maxToolOutputChars: number;
  timeouts: RunTimeouts;
  /** The agent's MCP servers on this worker, when it has any. */
  mcp?: McpAgentTools;
  timeoutMs: number | undefined;
  limits: RunLimits | undefined;
  /** Undefined when no tool of the agent needs approval. */
  approval: ResolvedApproval | undefined;
  /** Undefined when live text is off. */
  textDeltaBatchMs: number | undefined;
  /** The context budget as the definition set it; defaults are filled in per model. */
  context: ContextOptions | undefined;
  /** The definition's structured output, as JSON Schema; undefined when runs answer in text. */
  output?: OutputSpec;
}

export type AgentRegistry = ReadonlyMap<string, RegisteredAgent>;

/** Validates every definition (tool names, duplicates, limits) so mistakes fail at start-up, not mid-run. */
export function buildAgentRegistry(
  agents: Record<string, AgentDefinition>,
  defaultMemoryStore: MemoryStore,
  mcpPool: McpConnectionPool = new McpConnectionPool(),
): AgentRegistry {
  const registry = new Map<string, RegisteredAgent>();
  for (const [name, definition] of Object.entries(agents)) {
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
    registry.set(name, {
      name,
      models,
      defaultModel: llm.modelId,
      tools,
      schemas,
      initialTools,
      builtinTools,
      credentialStore: definition.credentialStore,
      memoryStore: definition.memoryStore ?? defaultMemoryStore,
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
      approval: resolveApproval(name, definition.approval, tools, builtinTools),
      textDeltaBatchMs: resolveLiveText(name, definition.liveText),
      output: toOutputSpec(definition.output, definition.outputRepairs, `Agent "${name}"`),
      context: definition.context,
    });
  }
  return registry;
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

/** A limit of the definition, checked: a number above 0 (a whole number from 0 when `whole`), or undefined. */
export function positive(
  agent: string,
  field: string,
  value: number | undefined,
  whole = false,
): number | undefined {
  if (value === undefined) return undefined;
  const valid = typeof value === 'number' && (whole ? Number.isInteger(value) && value >= 0 : value > 0);
  if (!valid) {
    throw new ConfigurationError(
      `Agent "${agent}": ${field} must be ${whole ? 'a whole number of at least 0' : 'a number above 0'} (got ${String(value)}).`,
    );
  }
  return value;
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
