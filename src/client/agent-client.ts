import { randomUUID } from 'node:crypto';
import { Client, type Connection, type ConnectionLike } from '@temporalio/client';
import { encryptionDataConverter } from '../codec/aes-gcm-codec.ts';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import { connectClientConnection } from '../connection/connect.ts';
import { resolveTemporalConnection, type TemporalConnectionOptions } from '../connection/temporal-options.ts';
import type { DeepAgentRunInput } from '../common/deep.ts';
import type { AgentEvent } from '../common/events.ts';
import type { AgentResult } from '../common/run.ts';
import { usageFilter, type UsageQuery } from '../usage/query.ts';
import { summarizeUsage, type UsageReport } from '../usage/summary.ts';
import { usageStoreFollowing } from '../usage/default-store.ts';
import type { UsageStore } from '../usage/types.ts';
import type { Skill } from '../skills/skill.ts';
import { AgentChatSession, type ChatSessionOptions } from './chat-session.ts';
import { canStartEagerly } from './eager-start.ts';
import type { RunLimits } from '../common/control.ts';
import { checkCaching } from '../caching/check.ts';
import type { GuardrailSelection } from '../guardrails/recorded.ts';
import type { CachingOption } from '../caching/options.ts';
import { resolveLiveChannel, type LiveTextChannel } from '../live-text/channel.ts';
import { AgentRunHandle } from './run-handle.ts';
import { listAgentRuns, type AgentRunListing, type ListRunsOptions } from '../visibility/list.ts';
import { runStartOptions } from '../visibility/start-options.ts';
import { startWithSearchAttributes } from '../visibility/start-with-search-attributes.ts';
import { wakeWaitingRuns } from '../authorization/wake.ts';
import type { TelemetryOptions } from '../telemetry/options.ts';
import { AgentPollers } from '../triggers/pollers.ts';
import { AgentSchedules } from '../triggers/schedules.ts';
import { telemetryClientInterceptors } from '../telemetry/temporal-interceptors.ts';
import { checkFairness, runPriority } from '../fairness/priority.ts';
import type { FairnessOptions } from '../fairness/types.ts';
import {
  checkOutputRepairs,
  toOutputJsonSchema,
  type OutputSchema,
  type ResultOutput,
} from '../output/schema.ts';
import { ConfigurationError } from '../errors.ts';
import type { agentRun, deepAgentRun } from '../workflows/index.ts';

export { AgentRunHandle };

export interface StartRunOptions {
  /** Default: `agent-<name>-<uuid>`. */
  workflowId?: string;
  /** Scopes credential lookups to one end user. */
  tenant?: string;
  /** An explicit iteration limit; without it the agent's own applies. */
  maxIterations?: number;
  /** Skills for this run on top of the agent's own, by id or as Skill objects. */
  skills?: Array<string | Skill>;
  /** A model of the agent, by its name on the worker. Default: the agent's default model. */
  model?: string;
  /** Run as a DeepAgent: plan, execute, and with `verify` check and revise once. */
  deep?: { verify?: boolean };
  /** End the run with `stop_reason: 'deadline'` after this long; in-flight work is cancelled. */
  timeoutMs?: number;
  /** End the run with `stop_reason: 'budget'` before a step would pass one of these. */
  limits?: RunLimits;
  /** The provider's prompt cache for this run (docs/caching.md); the agent's `caching` otherwise. */
  caching?: CachingOption;
  /**
   * Which of the agent's guardrails this run runs, by name (docs/guardrails.md): a kind named runs
   * only those (`[]`: none of that kind); a kind left out runs all the agent's.
   */
  guardrails?: GuardrailSelection;
  /** Show the prompt's first line in the Temporal UI's summary of the run. Default: the client's setting (off). */
  summaryIncludesPrompt?: boolean;
  /**
   * Treat `workflowId` as an idempotency key: a run with this id that runs or ran (within the
   * namespace's retention) is not started again; `start` throws Temporal's
   * `WorkflowExecutionAlreadyStartedError` instead. Triggers start their runs this way.
   */
  once?: boolean;
  /**
   * A structured answer: a zod schema or a JSON Schema object (only its JSON Schema travels). The
   * answer is checked against it on the worker; `result().output` is then the parsed object.
   */
  output?: OutputSchema;
  /** How many times an answer that does not match `output` is sent back to the model. Default: the agent's, else 2. */
  outputRepairs?: number;
  /**
   * Temporal's priority key: 1 (first) to 5 (last); runs without one have 3. A backlog dispatches
   * lower keys first, then shares the rest among tenants by their fairness weights.
   */
  priority?: number;
}

/**
 * Starts agent runs on a Temporal cluster by agent name, for backend services. The agents
 * themselves (models, tools, credentials) live on workers created with `createAgentWorker`.
 *
 * @example
 * const agents = await AgentClient.connect({ address: 'localhost:7233', taskQueue: 'agents' });
 * const result = await agents.run('support', 'Is the billing API up?');
 */
export class AgentClient {
  readonly client: Client;
  readonly taskQueue: string;
  readonly #ownedConnection: Connection | undefined;
  readonly #summaryIncludesPrompt: boolean;
  #usageStore: UsageStore | undefined;
  readonly #ownsUsageStore: boolean;
  /** How the runs this client starts share the fleet with other tenants' (their fairness weights). */
  readonly fairness: FairnessOptions | undefined;
  #schedules: AgentSchedules | undefined;
  #pollers: AgentPollers | undefined;
  /** Where readers of runs hear the model's text as it is written (false: they poll). */
  readonly #live: LiveTextChannel | false;
  /** Aborted by {@link AgentClient.close}: ends the calls this client makes in the background. */
  readonly #closing = new AbortController();

  constructor(opts: {
    client: Client;
    taskQueue: string;
    ownedConnection?: Connection;
    /** Show each prompt's first line in the Temporal UI's run summary (default off: prompts stay out of listings). */
    summaryIncludesPrompt?: boolean;
    /** The workers' usage ledger, for {@link AgentClient.usage}. Default: the default SQLite file. */
    usageStore?: UsageStore;
    /** Fairness weights per tenant (docs/tenants.md). Default: every tenant weighs 1. */
    fairness?: FairnessOptions;
    /** Where readers hear the workers' live text (see {@link AgentClient.connect}). Default: this process's. */
    liveChannel?: LiveTextChannel | false;
  }) {
    this.#live = resolveLiveChannel(opts.liveChannel, 'AgentClient') ?? false;
    this.#usageStore = opts.usageStore;
    this.#ownsUsageStore = !opts.usageStore;
    this.fairness = checkFairness(opts.fairness);
    this.client = opts.client;
    this.taskQueue = opts.taskQueue;
    this.#ownedConnection = opts.ownedConnection;
    this.#summaryIncludesPrompt = opts.summaryIncludesPrompt ?? false;
  }

  /**
   * Connects to a cluster; {@link AgentClient.close} closes the connection. `temporal` takes a
   * `temporal.toml` profile, address, namespace, API key and TLS (default: the `default` profile and
   * `TEMPORAL_*` variables); `encryption` (default: `TOOLKIT_PAYLOAD_KEYS`) must match the workers'.
   */
  static async connect(opts: {
    /**
     * An open connection to use instead of opening one (it stays open on `close`). Give it the
     * `NativeConnection` of a worker in this process, and runs of that worker's task queue start
     * eagerly: the server hands the run's first step straight back to that worker (about 2–3 ms
     * sooner than a separate connection; docs/benchmarks.md).
     */
    connection?: ConnectionLike;
    address?: string;
    namespace?: string;
    taskQueue: string;
    temporal?: TemporalConnectionOptions;
    encryption?: PayloadEncryptionOptions;
    /** Show each prompt's first line in the Temporal UI's run summary (default off). */
    summaryIncludesPrompt?: boolean;
    /** OpenTelemetry: carry the caller's trace into the runs it starts. Default: the global provider, if any. */
    telemetry?: TelemetryOptions;
    /**
     * The workers' usage ledger, read by {@link AgentClient.usage} (give the store the workers use,
     * e.g. the same `PostgresUsageStore`). Default: the default SQLite file, as a worker's default.
     */
    usageStore?: UsageStore;
    /**
     * Each run carries its `tenant` as Temporal's fairness key; `weights` give tenants a larger or
     * smaller share of a busy fleet (docs/tenants.md). Default: every tenant weighs 1.
     */
    fairness?: FairnessOptions;
    /**
     * Where the readers of runs (`events()`, `stream()`, the UI stream) hear the model's text the
     * moment it is written, from workers sharing it (docs/streaming.md, "Live text"). Default: within
     * this process (workers created in it); pass the {@link LiveTextChannel} the workers use, or
     * `false` (readers then get a step's text when it answers, or from the batches of workers with
     * `liveChannel: false`).
     */
    liveChannel?: LiveTextChannel | false;
  }): Promise<AgentClient> {
    checkFairness(opts.fairness);
    const resolved = resolveTemporalConnection({
      ...opts.temporal,
      ...(opts.address === undefined ? {} : { address: opts.address }),
      ...(opts.namespace === undefined ? {} : { namespace: opts.namespace }),
    });
    const dataConverter = encryptionDataConverter(opts.encryption);
    const connection = opts.connection ? undefined : await connectClientConnection(resolved);
    const client = new Client({
      connection: opts.connection ?? connection,
      namespace: resolved.namespace,
      ...(dataConverter ? { dataConverter } : {}),
      interceptors: telemetryClientInterceptors(opts.telemetry),
    });
    return new AgentClient({
      client,
      taskQueue: opts.taskQueue,
      ownedConnection: connection,
      summaryIncludesPrompt: opts.summaryIncludesPrompt,
      ...(opts.usageStore ? { usageStore: opts.usageStore } : {}),
      ...(opts.fairness ? { fairness: opts.fairness } : {}),
      ...(opts.liveChannel === undefined ? {} : { liveChannel: opts.liveChannel }),
    });
  }

  /**
   * Starts a run of the named agent and returns its handle at once (`result()`, `events()`, the
   * controls). With `output`, the handle's result is typed from the schema; an agent whose definition
   * has an `output` answers in objects too (type them with `startRun<T>` or a `JsonSchema<T>`).
   */
  async startRun<S extends OutputSchema | undefined = undefined>(
    agent: string,
    prompt: string,
    opts: StartRunOptions & { output?: S } = {},
  ): Promise<AgentRunHandle<ResultOutput<S>>> {
    if (typeof prompt !== 'string' || prompt.trim() === '') {
      throw new ConfigurationError(
        'The prompt must be a non-empty string: pass the task for the agent as text.',
      );
    }
    const input: DeepAgentRunInput = { agent, prompt };
    if (opts.tenant !== undefined) input.tenant = opts.tenant;
    if (opts.maxIterations !== undefined) input.maxIterations = opts.maxIterations;
    if (opts.skills?.length) input.skills = opts.skills;
    if (opts.model !== undefined) input.model = opts.model;
    if (opts.deep?.verify) input.verify = true;
    if (opts.timeoutMs !== undefined) input.timeoutMs = checkedTimeout(opts.timeoutMs);
    if (opts.limits) input.limits = opts.limits;
    if (opts.caching !== undefined) input.caching = checkCaching('The run', opts.caching);
    if (opts.guardrails !== undefined) input.guardrails = opts.guardrails;
    if (opts.output !== undefined) input.output = toOutputJsonSchema(opts.output, 'The run');
    const repairs = checkOutputRepairs(opts.outputRepairs, 'The run');
    if (repairs !== undefined) input.outputRepairs = repairs;
    const workflowId = opts.workflowId ?? `agent-${agent}-${randomUUID()}`;
    const priority = runPriority(opts.tenant, this.fairness, opts.priority);
    const ui = runStartOptions({
      agent,
      tenant: opts.tenant,
      kind: opts.deep ? 'deep run' : 'run',
      model: opts.model,
      ...((opts.summaryIncludesPrompt ?? this.#summaryIncludesPrompt) ? { prompt } : {}),
    });
    const workflow = await startWithSearchAttributes(this.client, (withSearchAttributes) =>
      this.client.workflow.start<typeof agentRun | typeof deepAgentRun>(
        opts.deep ? 'deepAgentRun' : 'agentRun',
        {
          taskQueue: this.taskQueue,
          workflowId,
          args: [input],
          ...(opts.once
            ? { workflowIdReusePolicy: 'REJECT_DUPLICATE', workflowIdConflictPolicy: 'FAIL' }
            : {}),
          ...(priority ? { priority } : {}),
          ...(canStartEagerly(this.client) ? { requestEagerStart: true } : {}),
          ...ui.options,
          ...(withSearchAttributes ? ui.searchAttributes : {}),
        },
      ),
    );
    return new AgentRunHandle<ResultOutput<S>>(workflow, { liveChannel: this.#live });
  }

  /**
   * @deprecated Use {@link AgentClient.startRun}, the one name for starting a run on `Agent` and
   * `AgentClient` alike; `start` stays as an alias.
   */
  start<S extends OutputSchema | undefined = undefined>(
    agent: string,
    prompt: string,
    opts: StartRunOptions & { output?: S } = {},
  ): Promise<AgentRunHandle<ResultOutput<S>>> {
    return this.startRun(agent, prompt, opts);
  }

  /** Runs the named agent to the end. */
  async run<S extends OutputSchema | undefined = undefined>(
    agent: string,
    prompt: string,
    opts?: StartRunOptions & { output?: S },
  ): Promise<AgentResult<ResultOutput<S>>> {
    return (await this.startRun(agent, prompt, opts)).result();
  }

  /** Starts a run and yields its events as they happen. */
  async *stream(agent: string, prompt: string, opts?: StartRunOptions): AsyncGenerator<AgentEvent> {
    yield* (await this.startRun(agent, prompt, opts)).events();
  }

  /** A chat session of the named agent, by id (a new one when no id is given); reachable from any process. */
  chatSession(agent: string, opts: ChatSessionOptions = {}): AgentChatSession {
    return new AgentChatSession(
      async () => ({
        client: this.client,
        taskQueue: this.taskQueue,
        agent,
        fairness: this.fairness,
        liveChannel: this.#live,
      }),
      opts,
    );
  }

  /**
   * The runs and chat sessions of this client's task queue, newest first, through Temporal's
   * visibility API. Filtering by `agent` or `tenant` needs the `ToolkitAgent` and `ToolkitTenant`
   * search attributes on the cluster (the embedded server has them; see docs/observability.md).
   *
   * @example
   * const running = await agents.list({ agent: 'support', tenant: 'acme', status: 'running' });
   */
  list(opts: ListRunsOptions = {}): Promise<AgentRunListing[]> {
    return listAgentRuns(this.client, this.taskQueue, opts);
  }

  /**
   * Agent runs (or chat messages) on Temporal Schedules: `create`, `list`, `describe`, `pause`,
   * `unpause`, `trigger`, `delete`.
   */
  get schedules(): AgentSchedules {
    this.#schedules ??= new AgentSchedules(this.client, this.taskQueue, this.fairness);
    return this.#schedules;
  }

  /** Pollers for sources without push (Gmail, Linear): `start`, `stop`, `list`. */
  get pollers(): AgentPollers {
    this.#pollers ??= new AgentPollers(this.client, this.taskQueue, this.fairness);
    return this.#pollers;
  }

  /**
   * A user granted `credentialKey` for `tenant` (`undefined`: the shared records): every run and chat
   * turn of that tenant waiting on the key runs its call again now. A helper given this client as
   * `client` calls it from `exchangeCode`; call it yourself after storing a token any other way
   * (waiting runs also look in the store every minute). Answers the workflow ids told.
   */
  authorizationCompleted(tenant: string | undefined, credentialKey: string): Promise<string[]> {
    return wakeWaitingRuns(this.client, this.taskQueue, tenant, credentialKey);
  }

  /** A run started elsewhere, by workflow id (`T`: the type of its output, when it is structured). */
  getHandle<T = string>(workflowId: string): AgentRunHandle<T> {
    return new AgentRunHandle<T>(this.client.workflow.getHandle(workflowId), { liveChannel: this.#live });
  }

  /**
   * What the workers' runs and chat turns used, from the usage ledger: tokens (input, output,
   * cached input, reasoning), runs, sub-runs, tool calls by tool and wall time, for a tenant or an
   * agent over a time range, in total and grouped; with `pricing`, in dollars too.
   *
   * @example
   * const { totals, groups } = await agents.usage({ since: '7d', groupBy: 'tenant', pricing: { 'gpt-5': { input: 1.25, output: 10 } } });
   */
  async usage(query: UsageQuery = {}): Promise<UsageReport> {
    const filter = usageFilter(query);
    this.#usageStore ??= usageStoreFollowing(undefined);
    return summarizeUsage(await this.#usageStore.sums(filter, query.groupBy), {
      ...(query.groupBy ? { groupBy: query.groupBy } : {}),
      ...(query.pricing ? { pricing: query.pricing } : {}),
    });
  }

  /**
   * Runs `call` (Temporal client calls) in the background for at most `ms`: it is aborted when this
   * client closes, before the connection does, so no call of it is left to retry on a closed channel.
   *
   * @internal
   */
  inBackground<T>(ms: number, call: () => Promise<T>): Promise<T> {
    const signal = AbortSignal.any([AbortSignal.timeout(ms), this.#closing.signal]);
    return this.client.withAbortSignal(signal, call);
  }

  async close(): Promise<void> {
    this.#closing.abort();
    if (this.#ownsUsageStore) await this.#usageStore?.close?.();
    await this.#ownedConnection?.close();
  }
}

function checkedTimeout(timeoutMs: number): number {
  if (typeof timeoutMs !== 'number' || !(timeoutMs > 0)) {
    throw new ConfigurationError(
      `timeoutMs must be a number of milliseconds above 0 (got ${String(timeoutMs)}).`,
    );
  }
  return timeoutMs;
}
