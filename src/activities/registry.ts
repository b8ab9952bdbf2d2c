import type { RunTimeouts, ToolSchema } from '../common/index.ts';
import type { CredentialStore } from '../credentials/types.ts';
import { ConfigurationError } from '../errors.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { ModelAdapter } from '../models/model-adapter.ts';
import { assertValidTool, type BaseConnectorTool } from '../tools/connector-base.ts';

/** Everything a worker knows about one named agent: the parts with secrets and side effects. */
export interface AgentDefinition {
  llm: ModelAdapter;
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
}

export const DEFAULT_MAX_ITERATIONS = 4;
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 20_000;
export const DEFAULT_TIMEOUTS: RunTimeouts = {
  modelStartToCloseMs: 10 * 60_000,
  modelHeartbeatMs: 30_000,
  modelMaxAttempts: 6,
  toolStartToCloseMs: 5 * 60_000,
  toolMaxAttempts: 3,
};

/** An agent definition checked once, when the worker is created. */
export interface RegisteredAgent {
  name: string;
  llm: ModelAdapter;
  tools: Map<string, BaseConnectorTool>;
  schemas: Map<string, ToolSchema>;
  credentialStore: CredentialStore | undefined;
  memoryStore: MemoryStore;
  systemPrompt: string | undefined;
  maxIterations: number;
  maxToolOutputChars: number;
  timeouts: RunTimeouts;
}

export type AgentRegistry = ReadonlyMap<string, RegisteredAgent>;

/** Validates every definition (tool names, duplicates, limits) so mistakes fail at start-up, not mid-run. */
export function buildAgentRegistry(
  agents: Record<string, AgentDefinition>,
  defaultMemoryStore: MemoryStore,
): AgentRegistry {
  const registry = new Map<string, RegisteredAgent>();
  for (const [name, definition] of Object.entries(agents)) {
    if (typeof definition?.llm?.generate !== 'function') {
      throw new ConfigurationError(`Agent "${name}" needs an \`llm\`: a ModelAdapter such as ScriptedModel.`);
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
    const maxIterations = definition.maxIterations ?? DEFAULT_MAX_ITERATIONS;
    if (!Number.isInteger(maxIterations) || maxIterations < 1) {
      throw new ConfigurationError(`Agent "${name}": maxIterations must be a whole number of at least 1.`);
    }
    registry.set(name, {
      name,
      llm: definition.llm,
      tools,
      schemas,
      credentialStore: definition.credentialStore,
      memoryStore: definition.memoryStore ?? defaultMemoryStore,
      systemPrompt: definition.systemPrompt,
      maxIterations,
      maxToolOutputChars: definition.maxToolOutputChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS,
      timeouts: { ...DEFAULT_TIMEOUTS, ...definition.timeouts },
    });
  }
  return registry;
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
