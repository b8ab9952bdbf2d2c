import type { StartRunOptions } from '../client/agent-client.ts';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import type { TemporalConnectionOptions } from '../connection/temporal-options.ts';
import type { EmbeddedServerOptions } from '../embedded/dev-server.ts';
import type { FairnessOptions } from '../fairness/types.ts';
import type { WorkerLogLevel } from '../runtime-log.ts';
import type { TelemetryOptions } from '../telemetry/options.ts';
import type { UsageStore } from '../usage/types.ts';
import type { AgentDefinition } from './definition.ts';

/**
 * How an in-process agent (`new Agent()`, `new DeepAgent()`) reaches Temporal and hosts its worker:
 * what `createAgentWorker` and `AgentClient` take as their own options.
 */
export interface AgentHostingOptions {
  /**
   * An existing cluster: a `temporal.toml` profile, address, namespace, API key, TLS (see
   * TemporalConnectionOptions; `{}` takes the `default` profile and `TEMPORAL_*` variables). Without it an
   * embedded dev server is started (and shared in this process).
   */
  temporal?: TemporalConnectionOptions & { taskQueue?: string };
  /** Settings of the embedded server (used only without `temporal`). */
  embedded?: EmbeddedServerOptions;
  /** Encrypts payloads in history with AES-256-GCM. Default: `TOOLKIT_PAYLOAD_KEYS` when set. */
  encryption?: PayloadEncryptionOptions;
  /**
   * The usage ledger that `quotas` are checked against (docs/tenants.md). Default: beside the
   * memory store (in memory, the same SQLite file, or the same PostgreSQL database).
   */
  usageStore?: UsageStore;
  /** OpenTelemetry spans of runs, model steps and tool calls. Default: the global provider, if any. */
  telemetry?: TelemetryOptions;
  /** Show each prompt's first line in the Temporal UI's run summary (default off). */
  summaryIncludesPrompt?: boolean;
  /**
   * How much the worker logs (to standard error): default `WARN`, or `TOOLKIT_AGENT_LOG_LEVEL`.
   * Tool failures that go back to the model are one `INFO` line each, with full detail at `DEBUG`.
   * Applies when the agent installs the process's Temporal runtime (not after `Runtime.install` of your own).
   */
  logLevel?: WorkerLogLevel;
  /** Fairness weights of the tenants whose runs this agent starts (docs/tenants.md). */
  fairness?: FairnessOptions;
}

/**
 * What `new Agent()` (and `new DeepAgent()`) takes: the agent's {@link AgentDefinition} (the same
 * type `createAgentWorker({ agents })` takes, so every option works in both places) and how it
 * reaches Temporal ({@link AgentHostingOptions}).
 */
export interface AgentOptions extends AgentDefinition, AgentHostingOptions {}

/**
 * Per-run options of {@link Agent.run}, {@link Agent.stream} and {@link Agent.startRun}; `output`
 * and `outputRepairs` win over the agent's, `model` names one of the agent's `models`.
 */
export type AgentRunOptions = Pick<
  StartRunOptions,
  | 'timeoutMs'
  | 'limits'
  | 'tenant'
  | 'workflowId'
  | 'output'
  | 'outputRepairs'
  | 'priority'
  | 'model'
  | 'caching'
  | 'guardrails'
>;
