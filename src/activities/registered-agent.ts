import type { LiveTextChannel } from '../live-text/channel.ts';
import type { ResolvedApproval, RunLimits, RunTimeouts, ToolSchema } from '../common/index.ts';
import type { RegisteredAuthorization } from '../authorization/options.ts';
import type { CachingOption } from '../caching/options.ts';
import type { ContextOptions } from '../context/types.ts';
import type { CredentialStore } from '../credentials/types.ts';
import type { McpAgentTools } from '../mcp/agent-tools.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { RegisteredMemory } from '../agent-memory/registered.ts';
import type { AgentUsage } from '../usage/recorder.ts';
import type { ModelAdapter } from '../models/model-adapter.ts';
import type { SkillActivation } from '../skills/options.ts';
import type { FileSkillRegistry } from '../skills/registry.ts';
import type { Skill } from '../skills/skill.ts';
import type { BaseConnectorTool } from '../tools/connector-base.ts';
import type { OutputSpec } from '../output/types.ts';
import type { RegisteredGuardrails } from '../guardrails/registered.ts';
import type { ResolvedHandoff, ResolvedSubAgent } from '../subagents/types.ts';

// What the worker keeps of each agent: internal, so the published types of AgentDefinition do not
// reach the MCP SDK's types (an optional peer dependency) through the MCP connections held here.

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
  /** Tools whose calls are fast (`fast: true` or the definition's `fastTools`): carried or local activities. */
  fastTools: string[];
  /** Built-in tools that skills may attach (their schemas are in `schemas` too). */
  builtinTools: Map<string, BaseConnectorTool>;
  credentialStore: CredentialStore | undefined;
  memoryStore: MemoryStore;
  /** The usage ledger and the quotas in force; undefined when the worker keeps no ledger. */
  usage?: AgentUsage;
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
  /** Where model steps also say their text the moment it is written (the worker's `liveChannel`). */
  liveChannel?: LiveTextChannel;
  /** The context budget as the definition set it; defaults are filled in per model. */
  context: ContextOptions | undefined;
  /** The prompt cache, as the definition set it (`'auto'` when it did not). */
  caching: CachingOption;
  /** The definition's structured output, as JSON Schema; undefined when runs answer in text. */
  output?: OutputSpec;
  /** Sub-agent tools (`agent_<name>`) by tool name. */
  subAgents?: Map<string, ResolvedSubAgent>;
  /** Handoff tools (`transfer_to_<name>`) by tool name. */
  handoffs?: Map<string, ResolvedHandoff>;
  maxSubAgentDepth?: number;
  /** Mid-run authorization: the helpers by key, the wait, what a timeout does. */
  authorization?: RegisteredAuthorization;
  /** The task queue of each tool whose credential key is rate-limited; absent when none is. */
  toolQueues?: Record<string, string>;
  /** The task queue of each MCP server whose credential key is rate-limited; absent when none is. */
  mcpQueues?: Record<string, string>;
  /** The agent's guardrails, by kind and name; absent when it has none. */
  guardrails?: RegisteredGuardrails;
  /** The agent's long-term memory (`memory`); absent when it has none. */
  memory?: RegisteredMemory;
}

export type AgentRegistry = ReadonlyMap<string, RegisteredAgent>;
