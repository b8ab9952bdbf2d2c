import type { ApprovalSettings, RunLimits, RunTimeouts } from '../common/index.ts';
import type { AuthorizationOptions } from '../authorization/options.ts';
import type { CachingOption } from '../caching/options.ts';
import type { ContextOptions } from '../context/types.ts';
import type { CredentialStore } from '../credentials/types.ts';
import type { McpServers } from '../mcp/options.ts';
import type { RemoteA2aAgent } from '../a2a/options.ts';
import type { Quotas } from '../usage/quotas.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { LlmOption } from '../models/to-adapter.ts';
import type { SkillOptions } from '../skills/options.ts';
import type { BaseConnectorTool } from '../tools/connector-base.ts';
import type { OutputSchema } from '../output/schema.ts';
import type { RateLimits } from '../rate-limits/types.ts';
import type { Guardrails } from '../guardrails/types.ts';
import type { AgentMemoryOptions } from '../agent-memory/options.ts';

/** `true` (default): live text in 100 ms batches; `{ batchMs }`: another interval; `false`: off. */
export type LiveTextOption = boolean | { batchMs?: number };

/**
 * A sub-agent of an agent (`subAgents`): a served agent by name (`agent`), or an inline `definition`
 * that `createAgentWorker` (and the `Agent` facade) register for it. Its calls start a child run.
 */
export interface SubAgentSpec {
  /** The served agent the child run starts. Default: the inline `definition`, registered as `<parent>.<name>`. */
  agent?: string;
  /**
   * A remote agent served over A2A (by its URL, with a credential key for its auth): each call is a
   * child run that sends one A2A task, once per tool call id (docs/a2a.md).
   */
  a2a?: RemoteA2aAgent;
  /** An inline definition of the sub-agent, registered on the same worker. */
  definition?: AgentDefinition;
  /** What the parent's model is told the sub-agent does. */
  description?: string;
  /**
   * The tool's parameters (a zod schema or a JSON Schema object) instead of `{ task: string }`: the
   * call's arguments, as JSON, are the child's prompt.
   */
  input?: OutputSchema;
}

/**
 * One agent's configuration: its model(s), tools, stores, skills, limits and behaviour. The same
 * type configures an agent served by `createAgentWorker({ agents: { name: definition } })` and an
 * in-process `new Agent(definition)` (which adds how it reaches Temporal: {@link AgentOptions}).
 */
export interface AgentDefinition extends SkillOptions {
  /** The default model: an AI SDK provider model or a ModelAdapter. */
  llm: LlmOption;
  /** Further models a run may name (`model` in the run options), by name. */
  models?: Record<string, LlmOption>;
  tools?: BaseConnectorTool[];
  /**
   * Tools (by name, of `tools` or `builtinTools`) whose calls are fast (they ride with the next
   * model step, or run as local activities), on top of those that declare `fast: true`: for calls
   * that take milliseconds and do no network I/O (docs/connectors.md, "Fast tools").
   */
  fastTools?: string[];
  credentialStore?: CredentialStore;
  /** Where this agent's conversations live. Default: the worker's memory store. */
  memoryStore?: MemoryStore;
  /**
   * Quotas per tenant for runs of this agent: they count the tenant's runs of this agent, on top of
   * the worker's `quotas` (which count all its runs); checked against the usage ledger. See docs/tenants.md.
   */
  quotas?: Quotas;
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
   * The provider's prompt cache (docs/caching.md): `'auto'` (default) marks Anthropic's cache
   * breakpoints and sends OpenAI a cache key per conversation, choosing the TTL by what the run
   * waits for; `false` sends no marker; `{ ttl }` fixes the TTL.
   */
  caching?: CachingOption;
  /**
   * Every run answers with an object matching this schema (a zod schema or a JSON Schema object),
   * unless the run names its own `output`: `result.output` is then the parsed object.
   */
  output?: OutputSchema;
  /** How many times an answer that does not match `output` is sent back to the model. Default 2. */
  outputRepairs?: number;
  /**
   * Agents this one may delegate to, each offered to the model as a tool `agent_<name>` whose call
   * runs the sub-agent as a child workflow with a conversation of its own; its answer (its
   * structured output, when it has one) is the call's result. A string names a served agent.
   */
  subAgents?: Record<string, string | SubAgentSpec>;
  /**
   * Agents this one may hand the conversation to, offered as tools `transfer_to_<name>`: the
   * conversation goes on with the target's instructions, tools and skills (on the same memory store).
   * A name of one of its `subAgents` hands over to that sub-agent's agent; any other names a served agent.
   */
  handoffs?: string[];
  /** How deep sub-agents may nest below a top-level run. Default 3. */
  maxSubAgentDepth?: number;
  /** Ask the user for a missing grant mid-run and wait for it (docs/control.md). */
  authorization?: AuthorizationOptions;
  /**
   * Provider rate limits by credential key, enforced by Temporal across every worker: the calls of
   * tools reading a limited key go to a task queue of their own with that dispatch rate
   * (docs/tenants.md). A key limited by several agents, or by the worker, gets the lowest rate.
   */
  rateLimits?: RateLimits;
  /**
   * Checks on each run's prompt (`input`), final answer (`output`) and tool calls (`tools`), run on
   * the worker: a trip ends the run with `stop_reason: 'guardrail'` (docs/guardrails.md).
   * Sub-agents without guardrails of their own run these.
   */
  guardrails?: Guardrails;
  /**
   * Long-term memory across sessions (docs/memory.md, "Agents that remember"): each chat turn, and
   * each run whose `resource` answers one, is remembered after it answers; later turns of the same
   * resource recall it, in their prompt (`recall.mode: 'auto'`) or with a `recall_memory` tool.
   */
  memory?: AgentMemoryOptions;
}
