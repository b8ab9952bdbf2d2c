/**
 * The `toolkit-agent/worker` entry point.
 *
 * @module toolkit-agent/worker
 */
import './node-version-check.ts'; // first: an unsupported Node.js stops here, with one line
import {
  Worker,
  type NativeConnection,
  type WorkerOptions,
  type WorkflowBundleOption,
} from '@temporalio/worker';
import { createActivities } from './activities/index.ts';
import type { AgentDefinition } from './agent/definition.ts';
import {
  resolveWorkerDeployment,
  workerDeploymentOptions,
  type WorkerDeployment,
} from './deploy/worker-deployment.ts';
import { resolveLiveChannel, type LiveTextChannel } from './live-text/channel.ts';
import { liveEventSinks } from './live-text/event-sink.ts';
import { buildAgentRegistry } from './activities/registry.ts';
import { encryptionDataConverter } from './codec/aes-gcm-codec.ts';
import type { PayloadEncryptionOptions } from './codec/key-ring.ts';
import { connectWorkerConnection } from './connection/connect.ts';
import { ensureNamespace, isNamespaceNotFound, namespaceNotFoundError } from './connection/namespace.ts';
import { resolveTemporalConnection, type TemporalConnectionOptions } from './connection/temporal-options.ts';
import { McpConnectionPool } from './mcp/pool.ts';
import type { MemoryStore } from './memory/types.ts';
import { SqliteMemoryStore } from './memory/sqlite.ts';
import { toLongTermMemory, type LongTermMemoryOption } from './agent-memory/registered.ts';
import { defaultMemoryPath } from './paths.ts';
import { installWorkerRuntime, resolveLogLevel, type WorkerLogLevel } from './runtime-log.ts';
import { resolveTelemetry, type TelemetryOptions } from './telemetry/options.ts';
import { telemetryWorkerOptions } from './telemetry/temporal-interceptors.ts';
import { usageStoreFollowing } from './usage/default-store.ts';
import { validateQuotas, type Quotas } from './usage/quotas.ts';
import type { UsageStore } from './usage/types.ts';
import { agentWorkflowBundle, bundleEncodesFailures, FAILURE_CONVERTER_PATH } from './workflow-bundle.ts';
import { rateLimitedQueues } from './rate-limits/queues.ts';
import { withInlineSubAgents } from './subagents/definitions.ts';
import type { RateLimits } from './rate-limits/types.ts';
import { createRateLimitedWorkers, withRateLimitedWorkers } from './rate-limits/workers.ts';
import { concurrencyDefaults, DEFAULT_MAX_CACHED_WORKFLOWS } from './worker-concurrency.ts';
import { ConfigurationError } from './errors.ts';

export type { AgentDefinition, SubAgentSpec } from './agent/definition.ts';
export {
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_TOOL_OUTPUT_CHARS,
  DEFAULT_TIMEOUTS,
} from './activities/agent-defaults.ts';
export { buildAgentWorkflowBundle, type AgentWorkflowBundleOptions } from './workflow-bundle.ts';
export type { Quotas, QuotaLimits } from './usage/quotas.ts';
export type { WorkerDeployment } from './deploy/worker-deployment.ts';
export type { UsageStore } from './usage/types.ts';
export type { RateLimit, RateLimits } from './rate-limits/types.ts';
export { DEFAULT_LONG_RETRY_AFTER_MS } from './rate-limits/types.ts';

/** How long (ms) a stopping worker lets running activities finish before cancelling them. */
export const DEFAULT_SHUTDOWN_GRACE_TIME = 10_000;

export interface AgentWorkerOptions {
  /** The agents this worker serves, by the name clients start runs with. */
  agents: Record<string, AgentDefinition>;
  taskQueue: string;
  /** A connection to share; else one is opened with `temporal` (or `address`). */
  connection?: NativeConnection;
  /**
   * Where Temporal is and how to reach it: a `temporal.toml` profile, address, namespace, API key, TLS.
   * Default: the `default` profile and `TEMPORAL_*` variables, else `localhost:7233`.
   */
  temporal?: TemporalConnectionOptions;
  /** Temporal frontend, e.g. `localhost:7233` (short for `temporal.address`). */
  address?: string;
  namespace?: string;
  /**
   * Encrypts every payload with AES-256-GCM (clients need the same keys). Default: the keys in
   * `TOOLKIT_PAYLOAD_KEYS` / `TOOLKIT_PAYLOAD_KEY_ID` when set, else no encryption.
   */
  encryption?: PayloadEncryptionOptions;
  /**
   * Where conversations live. Default: a SQLite file at `~/.toolkit-agent/memory.sqlite`
   * (`TOOLKIT_AGENT_HOME` moves it), shared by the workers of one machine. Workers on several
   * machines need a store they share.
   */
  memoryStore?: MemoryStore;
  /**
   * Long-term memory for the agents whose `memory` names no `store` (docs/memory.md): a
   * `LongTermMemory`, or one of its stores (`SqliteLongTermStore`, `PostgresLongTermStore`). Workers
   * that serve the same agents must share it. The application closes it.
   */
  longTermMemory?: LongTermMemoryOption;
  /**
   * The usage ledger (tokens, tool calls, runs per tenant; docs/tenants.md). Default: beside the
   * memory store (in memory, the same SQLite file, or the same PostgreSQL database). Workers that
   * share quotas must share it.
   */
  usageStore?: UsageStore;
  /** Quotas per tenant for the whole fleet, checked against the usage ledger (docs/tenants.md). */
  quotas?: Quotas;
  /**
   * A prebuilt workflow bundle (see `buildAgentWorkflowBundle`; with `encryption`, one built with
   * `encodeFailures: true`); default: built or found once per process.
   */
  workflowBundle?: WorkflowBundleOption;
  /**
   * How long `worker.shutdown()` lets running activities (a tool call, a model step) finish before
   * cancelling them, in milliseconds. Default 10,000 (10 seconds): a deploy that stops a worker
   * does not abort the tool calls it was making.
   */
  shutdownGraceTime?: number;
  /**
   * Close an MCP connection (its session, its stdio process) after this long without a request, in
   * milliseconds; the next use connects again. Default 300,000 (5 minutes).
   */
  mcpIdleTimeoutMs?: number;
  /** OpenTelemetry: spans of runs, model steps and tool calls (docs/observability.md). Default: the global provider, if any. */
  telemetry?: TelemetryOptions;
  /**
   * How much the worker logs: default `INFO`, or `TOOLKIT_AGENT_LOG_LEVEL`. Tool failures that go
   * back to the model are one `INFO` line each, with full detail at `DEBUG`. Applies when this
   * installs the process's Temporal runtime (not after an application's own `Runtime.install`).
   */
  logLevel?: WorkerLogLevel;
  /**
   * Provider rate limits by credential key, e.g. `{ github: { perSecond: 5 } }`, enforced by Temporal
   * across every worker of the task queue: the calls of tools reading a limited key run on a task
   * queue of their own (`<taskQueue>@rate-limit:<key>`), polled by a worker this creates with a
   * server-side dispatch rate. Agents may name theirs too (`AgentDefinition.rateLimits`); the lowest
   * rate of a key wins. See docs/tenants.md.
   */
  rateLimits?: RateLimits;
  /**
   * Run as a version of a Temporal worker deployment (Worker Versioning): runs stay on the version
   * that started them, chat sessions and pollers move to the current version between turns or polls.
   * Default: `TEMPORAL_DEPLOYMENT_NAME` with `TEMPORAL_WORKER_BUILD_ID` when set, else an
   * unversioned worker; `false` makes an unversioned worker whatever the environment says. See
   * docs/production.md, "Deploying a new version".
   */
  deployment?: WorkerDeployment | false;
  /**
   * How many workflows (runs, chat sessions) the worker keeps in memory between their tasks; the
   * others replay their history when their next task comes (a message to an idle session). Default
   * 1,000 (about 0.5 MB of resident memory per cached chat session); `workerOptions.maxCachedWorkflows`,
   * when set, wins. See docs/production.md, "Many open sessions".
   */
  maxCachedWorkflows?: number;
  /**
   * Further Temporal worker options (concurrency, sticky queue timeout, identity, ...). Default
   * slots: 500 activities and 500 local activities at once (unless a `tuner` is given).
   */
  workerOptions?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities'>>;
  /**
   * Where model steps say their text the moment the model writes it, for readers of the runs
   * (docs/streaming.md, "Live text"); the runs record each step's text once, from its result.
   * Default: within this process (readers in it get each piece at once; readers elsewhere get a
   * step's text when it answers). Pass a {@link LiveTextChannel} shared with readers in other
   * processes, or `false` to send the text to the workflow in ~100 ms batches instead (a signal, a
   * billable action and history, each).
   */
  liveChannel?: LiveTextChannel | false;
}

/**
 * Creates a Temporal worker that runs the agent workflows and the activities of the named agents.
 * Call `worker.run()` to serve and `worker.shutdown()` to stop. A connection it opened itself (no
 * `connection` given) is closed when `run()` ends.
 *
 * @example
 * const worker = await createAgentWorker({
 *   taskQueue: 'agents',
 *   agents: { support: { llm, tools: [new CustomAPITool()], credentialStore } },
 * });
 * await worker.run();
 */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  installWorkerRuntime({ level: resolveLogLevel(options.logLevel, 'INFO') });
  const memoryStore = options.memoryStore ?? new SqliteMemoryStore({ path: defaultMemoryPath() });
  const mcpPool = new McpConnectionPool({ idleTimeoutMs: options.mcpIdleTimeoutMs });
  const queues = rateLimitedQueues(options.taskQueue, [
    { where: 'createAgentWorker', limits: options.rateLimits },
    // Inline sub-agent definitions are served here too: their limits count.
    ...Object.entries(withInlineSubAgents(options.agents)).map(([name, agent]) => ({
      where: `Agent "${name}"`,
      limits: agent?.rateLimits,
    })),
  ]);
  const quotas = validateQuotas('createAgentWorker', options.quotas);
  const deployment = resolveWorkerDeployment('createAgentWorker', options.deployment);
  const usageStore = options.usageStore ?? usageStoreFollowing(memoryStore);
  const liveChannel = resolveLiveChannel(options.liveChannel, 'createAgentWorker');
  const registry = buildAgentRegistry(
    options.agents,
    memoryStore,
    mcpPool,
    queues,
    { store: usageStore, ...(quotas ? { fleet: quotas } : {}) },
    liveChannel,
    options.longTermMemory && toLongTermMemory(options.longTermMemory),
  );
  const resolved = resolveTemporalConnection({
    ...options.temporal,
    ...(options.address === undefined ? {} : { address: options.address }),
    ...(options.namespace === undefined ? {} : { namespace: options.namespace }),
  });
  // With encryption, failures encode their message and stack (then encrypted), as the workflows do.
  const encryption = encryptionDataConverter(options.encryption);
  const dataConverter = encryption && { ...encryption, failureConverterPath: FAILURE_CONVERTER_PATH };
  const encodeFailures = dataConverter !== undefined;
  if (options.workflowBundle && encodeFailures) await checkEncodesFailures(options.workflowBundle);
  const connection = options.connection ?? (await connectWorkerConnection(resolved));
  // A connection opened here is closed here: if the worker cannot be made, and when it stops.
  const ownConnection = options.connection ? undefined : connection;
  // Where the namespace was looked for, when known (a shared connection does not say its address).
  const address = options.connection && !options.address && !options.temporal ? undefined : resolved.address;
  let worker: Worker;
  try {
    await ensureNamespace(connection, resolved.namespace, address);
    const { workflowBundle: _bundle, workflowsPath: _path, ...workerOptions } = options.workerOptions ?? {};
    const telemetry = telemetryWorkerOptions(registry, options.telemetry, options.workerOptions);
    const base = {
      shutdownGraceTime: options.shutdownGraceTime ?? DEFAULT_SHUTDOWN_GRACE_TIME,
      // Heartbeats carry cancellation to running activities: let one through at least every 2 s.
      maxHeartbeatThrottleInterval: '2 seconds',
      defaultHeartbeatThrottleInterval: '2 seconds',
      ...concurrencyDefaults(options.workerOptions),
      maxCachedWorkflows: options.maxCachedWorkflows ?? DEFAULT_MAX_CACHED_WORKFLOWS,
      ...workerOptions,
      // Rate-limited activity workers are versioned too: a pinned run's calls go to its own version.
      ...(deployment ? { workerDeploymentOptions: workerDeploymentOptions(deployment) } : {}),
      ...(dataConverter ? { dataConverter } : {}),
      connection,
      namespace: resolved.namespace,
      activities: createActivities(registry),
      interceptors: telemetry.interceptors,
    } as const;
    worker = await Worker.create({
      ...options.workerOptions,
      ...base,
      taskQueue: options.taskQueue,
      // Without telemetry the workflows run without the tracing interceptors: less CPU per workflow task.
      workflowBundle:
        options.workflowBundle ??
        (await agentWorkflowBundle({
          tracing: resolveTelemetry(options.telemetry) !== undefined,
          encodeFailures,
        })),
      ...telemetry,
      // The runs' events go on the live channel as the workflows log them (readers need not ask).
      sinks: { ...telemetry.sinks, ...liveEventSinks(liveChannel) },
    });
    // Activity-only workers: the workflow interceptors and sinks stay with the main worker.
    const { workflowModules: _modules, ...activityInterceptors } = telemetry.interceptors;
    worker = withRateLimitedWorkers(
      worker,
      await createRateLimitedWorkers(queues.values(), { ...base, interceptors: activityInterceptors }),
    );
  } catch (error) {
    await ownConnection?.close();
    if (!options.usageStore) await usageStore.close?.();
    throw isNamespaceNotFound(error) ? namespaceNotFoundError(resolved.namespace, address) : error;
  }
  mcpPool.closeWhenStopped(worker);
  // A ledger made here (beside the memory store) is closed here, when the worker stops.
  if (!options.usageStore) closeWhenStopped(worker, usageStore);
  return ownConnection ? closingConnectionAfterRun(worker, ownConnection) : worker;
}

/** A worker whose `run()` closes the usage ledger `createAgentWorker` opened for it once it stops. */
function closeWhenStopped(worker: Worker, store: UsageStore): void {
  const run = worker.run.bind(worker);
  worker.run = () => run().finally(() => store.close?.());
}

/** A worker whose `run()` closes the connection `createAgentWorker` opened for it once it stops. */
function closingConnectionAfterRun(worker: Worker, connection: NativeConnection): Worker {
  const run = worker.run.bind(worker);
  worker.run = async () => {
    try {
      await run();
    } finally {
      await connection.close();
    }
  };
  return worker;
}

/** Refuses a prebuilt bundle that would write an encrypted worker's failure text in the clear. */
async function checkEncodesFailures(bundle: WorkflowBundleOption): Promise<void> {
  if (await bundleEncodesFailures(bundle)) return;
  throw new ConfigurationError(
    'createAgentWorker: `encryption` is configured, but the `workflowBundle` given keeps failure ' +
      'messages in the clear. Build it with `buildAgentWorkflowBundle({ encodeFailures: true })`, ' +
      'or leave `workflowBundle` out.',
  );
}
