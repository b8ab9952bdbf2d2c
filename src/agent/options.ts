import type { StartRunOptions } from '../client/agent-client.ts';
import type { LiveTextOption } from '../activities/live-text.ts';
import type { SubAgentSpec } from '../activities/agent-definition.ts';
import type { AuthorizationOptions } from '../authorization/options.ts';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import type { ApprovalSettings, RunLimits } from '../common/control.ts';
import type { TemporalConnectionOptions } from '../connection/temporal-options.ts';
import type { ContextOptions } from '../context/types.ts';
import type { CredentialStore } from '../credentials/types.ts';
import type { EmbeddedServerOptions } from '../embedded/dev-server.ts';
import type { FairnessOptions } from '../fairness/types.ts';
import type { McpServers } from '../mcp/options.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { LlmOption } from '../models/to-adapter.ts';
import type { OutputSchema } from '../output/schema.ts';
import type { RateLimits } from '../rate-limits/types.ts';
import type { WorkerLogLevel } from '../runtime-log.ts';
import type { SkillOptions } from '../skills/options.ts';
import type { TelemetryOptions } from '../telemetry/options.ts';
import type { BaseConnectorTool } from '../tools/connector-base.ts';

/** What `new Agent()` (and `new DeepAgent()`) takes: the model, tools, stores, skills, limits and how it reaches Temporal. */
export interface AgentOptions extends SkillOptions {
  /** The model: any AI SDK provider model (e.g. `anthropic('claude-sonnet-4-5')`) or a ModelAdapter. */
  llm: LlmOption;
  credentialStore?: CredentialStore;
  tools?: BaseConnectorTool[];
  /**
   * Tools (by name) whose calls have no round trip of their own through the server (they ride with
   * the next model step, or run as local activities), on top of those that declare `fast: true`
   * (docs/connectors.md, "Fast tools").
   */
  fastTools?: string[];
  /** Model iterations per run; default 4. */
  maxIterations?: number;
  /** Where conversations live. Default: a SQLite file at `~/.toolkit-agent/memory.sqlite`. */
  memoryStore?: MemoryStore;
  systemPrompt?: string;
  /** Characters of tool output given to the model; default 20,000. */
  maxToolOutputChars?: number;
  /** Show the model only `tool_search` at first and load the tools it finds (for agents with many tools). */
  toolSearch?: boolean | { alwaysLoaded?: string[] };
  /** MCP servers whose tools the agent offers as `<server>_<tool>` (see {@link McpServers}). */
  mcpServers?: McpServers;
  /**
   * An existing cluster: a `temporal.toml` profile, address, namespace, API key, TLS (see
   * TemporalConnectionOptions; `{}` takes the `default` profile and `TEMPORAL_*` variables). Without it an
   * embedded dev server is started (and shared in this process).
   */
  temporal?: TemporalConnectionOptions & { taskQueue?: string };
  /** Encrypts payloads in history with AES-256-GCM. Default: `TOOLKIT_PAYLOAD_KEYS` when set. */
  encryption?: PayloadEncryptionOptions;
  /** Each run ends with `stop_reason: 'deadline'` after this long (a run's own `timeoutMs` wins). */
  timeoutMs?: number;
  /** Budgets of each run (`stop_reason: 'budget'`). */
  limits?: RunLimits;
  /** Tools that wait for a person's approval (instead of each tool's `needsApproval`). */
  approval?: ApprovalSettings;
  /** Live text (`text_delta` events) in batches; default every 100 ms; `false` turns it off. */
  liveText?: LiveTextOption;
  /** Keeps long conversations inside the model's context window: budget and compaction (docs/chat.md, "Long conversations"). */
  context?: ContextOptions;
  /** Settings of the embedded server (used only without `temporal`). */
  embedded?: EmbeddedServerOptions;
  /** OpenTelemetry spans of runs, model steps and tool calls. Default: the global provider, if any. */
  telemetry?: TelemetryOptions;
  /** Show each prompt's first line in the Temporal UI's run summary (default off). */
  summaryIncludesPrompt?: boolean;
  /**
   * Every run answers with an object matching this schema (zod, or a JSON Schema object) unless the
   * run names its own: `result.output` is the parsed object, typed from the schema.
   */
  output?: OutputSchema;
  /** How many times an answer that does not match `output` is sent back to the model. Default 2. */
  outputRepairs?: number;
  /**
   * How much the worker logs (to standard error): default `WARN`, or `TOOLKIT_AGENT_LOG_LEVEL`.
   * Tool failures that go back to the model are one `INFO` line each, with full detail at `DEBUG`.
   * Applies when the agent installs the process's Temporal runtime (not after `Runtime.install` of your own).
   */
  logLevel?: WorkerLogLevel;
  /**
   * Agents this one delegates to, as tools `agent_<name>` whose calls run as child workflows: an
   * inline `{ definition }` (served by this agent's worker) or the name of an agent served on the task queue.
   */
  subAgents?: Record<string, string | SubAgentSpec>;
  /** Agents this one may hand the conversation to (`transfer_to_<name>`): names of its `subAgents` or served agents. */
  handoffs?: string[];
  /** How deep sub-agents may nest. Default 3. */
  maxSubAgentDepth?: number;
  /**
   * Ask the user for a missing, refused or under-scoped grant mid-run and wait for it durably:
   * `helpers` by credential key, `timeoutMs` (default 24 h), `onTimeout` (docs/control.md).
   */
  authorization?: AuthorizationOptions;
  /**
   * Provider rate limits by credential key, e.g. `{ github: { perSecond: 5 } }`, enforced by Temporal
   * for every worker of the task queue (docs/tenants.md).
   */
  rateLimits?: RateLimits;
  /** Fairness weights of the tenants whose runs this agent starts (docs/tenants.md). */
  fairness?: FairnessOptions;
}

/**
 * Per-run options of {@link Agent.run}, {@link Agent.stream} and {@link Agent.startRun}; `output`
 * and `outputRepairs` win over the agent's.
 */
export type AgentRunOptions = Pick<
  StartRunOptions,
  'timeoutMs' | 'limits' | 'tenant' | 'workflowId' | 'output' | 'outputRepairs' | 'priority'
>;
