import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { AgentClient, type AgentRunHandle, type StartRunOptions } from '../client/agent-client.ts';
import { AgentChatSession } from '../client/chat-session.ts';
import type { RunLimits } from '../common/control.ts';
import type { AgentEvent } from '../common/events.ts';
import type { AgentResult } from '../common/run.ts';
import { encryptionDataConverter } from '../codec/aes-gcm-codec.ts';
import { connectWorkerConnection } from '../connection/connect.ts';
import {
  resolveTemporalConnection,
  type ResolvedTemporalConnection,
  type TemporalConnectionOptions,
} from '../connection/temporal-options.ts';
import { acquireEmbeddedServer } from '../embedded/dev-server.ts';
import { validateContextOptions } from '../context/options.ts';
import { ConfigurationError } from '../errors.ts';
import { SqliteMemoryStore } from '../memory/sqlite.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { ModelAdapter } from '../models/model-adapter.ts';
import { toModelAdapter } from '../models/to-adapter.ts';
import { defaultMemoryPath } from '../paths.ts';
import { discoverProjectSkills } from '../skills/project.ts';
import { FileSkillRegistry } from '../skills/registry.ts';
import { SkillSearchIndex } from '../skills/search.ts';
import type { Skill } from '../skills/skill.ts';
import { builtinTools } from '../tools/builtins/index.ts';
import { DEFAULT_PROJECT_ROOT } from '../tools/builtins/jail.ts';
import type { BaseConnectorTool } from '../tools/connector-base.ts';
import { createAgentWorker } from '../worker.ts';
import { installWorkerRuntime, resolveLogLevel } from '../runtime-log.ts';
import { stopOnInterrupt } from './interrupt.ts';
import { LazyConnection } from './lazy-connection.ts';
import { telemetryClientInterceptors } from '../telemetry/temporal-interceptors.ts';
import {
  checkOutputRepairs,
  toOutputJsonSchema,
  type OutputSchema,
  type ResultOutput,
} from '../output/schema.ts';

import type { AgentOptions, AgentRunOptions } from './options.ts';

export type { AgentOptions, AgentRunOptions };

interface Started {
  agents: AgentClient;
  client: Client;
  namespace: string;
  taskQueue: string;
  worker: Worker;
  memoryStore: MemoryStore;
  /** Rejects when the worker stops serving for any reason other than {@link Agent.close}. */
  serving: Promise<never>;
  stop: () => Promise<void>;
}

/** Whether the Temporal runtime is the one an Agent installed (then agents handle Ctrl-C). */
let interruptible = false;

/**
 * The in-process facade of the spec: an agent whose every run is a Temporal workflow. Without a
 * `temporal` option it starts an embedded dev server and an in-process worker on first use; with one
 * it serves on that cluster. Call {@link Agent.close} when done.
 *
 * @example
 * const agent = new Agent({ llm, tools: [new CustomAPITool()], credentialStore });
 * const result = await agent.run('Is the billing API up?');
 * await agent.close();
 */
export class Agent<S extends OutputSchema | undefined = undefined> {
  readonly #options: AgentOptions;
  readonly #llm: ModelAdapter;
  readonly #skills: Array<string | Skill>;
  readonly #registry: FileSkillRegistry;
  #builtins: BaseConnectorTool[] = [];
  readonly #name = `inproc-${randomUUID().slice(0, 8)}`;
  #starting: Promise<Started> | undefined;
  #closed = false;
  readonly #taskQueue: string;
  readonly #namespace: string;
  /** The client `agent.temporal` hands out: its first call starts the agent. */
  readonly #lazyClient: Client;

  /**
   * An agent whose skills may attach the built-in tools (files, shell, code, plan and verify),
   * confined to `projectRoot` (default `/tmp`). They are given to the model only in runs whose
   * skills attach them (`metadata.used_skill_tools`).
   */
  static withBuiltins(opts: AgentOptions): Agent {
    const agent = new Agent(opts);
    agent.enableBuiltins();
    return agent;
  }

  /** Makes the built-in tools available to this agent's skills (before its first run). */
  protected enableBuiltins(): void {
    this.#builtins = builtinTools({ projectRoot: this.#options.projectRoot ?? DEFAULT_PROJECT_ROOT });
  }

  constructor(opts: AgentOptions & { output?: S }) {
    this.#llm = toModelAdapter(opts?.llm, 'Agent');
    if (opts.output !== undefined) toOutputJsonSchema(opts.output, 'Agent');
    checkOutputRepairs(opts.outputRepairs, 'Agent');
    if (
      opts.maxIterations !== undefined &&
      (!Number.isInteger(opts.maxIterations) || opts.maxIterations < 1)
    ) {
      throw new ConfigurationError('`maxIterations` must be a whole number of at least 1.');
    }
    validateContextOptions('Agent', opts.context);
    this.#options = opts;
    this.#skills = [...(opts.skills ?? [])];
    this.#registry = opts.skillRegistry ?? new FileSkillRegistry(opts.skillSource);
    this.#taskQueue = opts.temporal?.taskQueue ?? `toolkit-agent-${randomUUID()}`;
    this.#namespace = opts.temporal ? namespaceOf(opts.temporal) : (opts.embedded?.namespace ?? 'default');
    this.#lazyClient = new Client({
      connection: new LazyConnection(async () => (await this.#start()).client.connection),
      namespace: this.#namespace,
    });
  }

  /** The skills attached to every run (from `skills` and `addSkill`). */
  get skills(): ReadonlyArray<string | Skill> {
    return this.#skills;
  }

  /** Attaches one more skill, by id or as a Skill object, to the runs that start from now on. */
  addSkill(idOrSkill: string | Skill): void {
    if (typeof idOrSkill !== 'string' && !idOrSkill?.id)
      throw new ConfigurationError(
        "addSkill takes a skill id or a Skill, e.g. addSkill('brand-voice') or addSkill(createSkill({ ... })).",
      );
    this.#skills.push(idOrSkill);
  }

  /** The skills this agent can use: the active catalog and the project's SKILL.md files (which win an id clash). */
  async availableSkills(): Promise<Skill[]> {
    const byId = new Map((await this.#registry.list()).map((skill) => [skill.id, skill]));
    if (this.#options.autoProjectSkills !== false) {
      const project = await discoverProjectSkills(this.#options.projectRoot ?? process.cwd());
      for (const skill of project.skills) byId.set(skill.id, skill);
    }
    return [...byId.values()];
  }

  /** Fuzzy search of the available skills. Results are never attached to a run by themselves. */
  async searchSkills(query: string): Promise<Skill[]> {
    return new SkillSearchIndex(await this.availableSkills()).search(query);
  }

  /**
   * Runs the agent on `prompt` and resolves with its output and metadata. With an `output` schema
   * (the run's, else the agent's) `result.output` is the parsed object, typed from the schema; an
   * answer that never matches rejects with an `OutputValidationError`.
   */
  async run<R extends OutputSchema | undefined = undefined>(
    prompt: string,
    opts: AgentRunOptions & { output?: R } = {},
  ): Promise<AgentResult<ResultOutput<R, S>>> {
    const handle = await this.startRun(prompt, opts);
    const started = await this.#start();
    return Promise.race([handle.result(), started.serving]);
  }

  /** Runs the agent on `prompt`, yielding each event as it happens (`partial_output` in a structured run). */
  async *stream(prompt: string, opts: AgentRunOptions = {}): AsyncGenerator<AgentEvent> {
    yield* (await this.startRun(prompt, opts)).events();
  }

  /**
   * Starts a run and returns its handle at once: `result()`, `events()`, and the controls
   * `cancel()`, `approve()`, `reject()`, `pendingApprovals()`.
   */
  async startRun<R extends OutputSchema | undefined = undefined>(
    prompt: string,
    opts: AgentRunOptions & { output?: R } = {},
  ): Promise<AgentRunHandle<ResultOutput<R, S>>> {
    const started = await this.#start();
    const handle = await started.agents.startRun(this.#name, prompt, { ...this.#runOptions(), ...opts });
    return handle as unknown as AgentRunHandle<ResultOutput<R, S>>;
  }

  /**
   * A conversation that keeps its context between `send` calls (docs/chat.md), durable as a
   * long-running workflow. Reuse a `sessionId` to continue a session.
   */
  chatSession(
    opts: { sessionId?: string; idleTimeoutMs?: number; timeoutMs?: number; limits?: RunLimits } = {},
  ): AgentChatSession {
    return new AgentChatSession(
      async () => {
        const started = await this.#start();
        return {
          client: started.client,
          taskQueue: started.taskQueue,
          agent: this.#name,
          memoryStore: started.memoryStore,
        };
      },
      { ...opts, ...this.#runOptions() },
    );
  }

  /**
   * The Temporal client, task queue and namespace the agent runs on. Readable before the first run:
   * the client's first call starts the agent (the embedded server and the worker) and then answers.
   */
  get temporal(): { client: Client; taskQueue: string; namespace: string } {
    return { client: this.#lazyClient, taskQueue: this.#taskQueue, namespace: this.#namespace };
  }

  /**
   * A user granted `credentialKey` for `tenant`: the runs and chat turns of that tenant waiting on it
   * run their calls again now. Give the agent to a helper as `client` and `exchangeCode` calls this.
   */
  async authorizationCompleted(tenant: string | undefined, credentialKey: string): Promise<string[]> {
    return (await this.#start()).agents.authorizationCompleted(tenant, credentialKey);
  }

  /** Starts the server (when embedded) and the worker. Runs call it; call it yourself to start early. */
  async start(): Promise<void> {
    await this.#start();
  }

  /** Stops the worker, and the embedded server when this was its last user. */
  async close(): Promise<void> {
    this.#closed = true;
    const starting = this.#starting;
    this.#starting = undefined;
    if (starting) await (await starting.catch(() => undefined))?.stop();
  }

  /** What kind of run this agent starts: plain runs here; DeepAgent plans and verifies. */
  protected runKind(): { deep?: { verify?: boolean } } {
    return {};
  }

  #runOptions(): StartRunOptions & { model: string } {
    return {
      ...this.runKind(),
      model: this.#llm.modelId,
      ...(this.#options.maxIterations === undefined ? {} : { maxIterations: this.#options.maxIterations }),
      ...(this.#skills.length ? { skills: [...this.#skills] } : {}),
      ...(this.#options.output === undefined ? {} : { output: this.#options.output }),
      ...(this.#options.outputRepairs === undefined ? {} : { outputRepairs: this.#options.outputRepairs }),
    };
  }

  #start(): Promise<Started> {
    if (this.#closed) return Promise.reject(new Error('This agent was closed; create a new one.'));
    this.#starting ??= this.#boot();
    return this.#starting;
  }

  async #boot(): Promise<Started> {
    const cleanup: Array<() => Promise<void>> = [];
    // A quiet Temporal runtime, unless the application installed its own: one line per entry, as the
    // CLI logs (a failed model step is a line, not an object with task tokens); Ctrl-C then stops this
    // agent with one line (Temporal's own signal handling would end the run() in a stack trace).
    if (
      installWorkerRuntime({
        level: resolveLogLevel(this.#options.logLevel, 'WARN'),
        oneLine: true,
        shutdownSignals: [],
      })
    ) {
      interruptible = true;
    }
    if (interruptible) {
      // Runs outlive this process only on a cluster, on a task queue a later worker serves again.
      const resumable = this.#options.temporal?.taskQueue !== undefined;
      const unregister = stopOnInterrupt(() => this.close(), resumable);
      cleanup.push(async () => unregister());
    }
    const stopAll = async (): Promise<void> => {
      for (const step of cleanup.reverse()) await step();
    };
    try {
      // The hosting options are this process's; the rest is the agent's definition, served as is.
      const {
        temporal,
        embedded: embeddedOptions,
        encryption,
        usageStore,
        telemetry,
        summaryIncludesPrompt,
        logLevel: _logLevel, // applied above, when the runtime is installed
        fairness,
        ...definition
      } = this.#options;
      let resolved: ResolvedTemporalConnection;
      if (temporal) {
        resolved = resolveTemporalConnection(temporal);
      } else {
        const embedded = await acquireEmbeddedServer(embeddedOptions);
        cleanup.push(embedded.release);
        resolved = { address: embedded.server.address, namespace: embedded.server.namespace };
      }
      const namespace = resolved.namespace;
      const taskQueue = this.#taskQueue;
      const memoryStore = this.#options.memoryStore ?? new SqliteMemoryStore({ path: defaultMemoryPath() });
      if (!this.#options.memoryStore) cleanup.push(async () => memoryStore.close?.());
      const nativeConnection = await connectWorkerConnection(resolved);
      cleanup.push(() => nativeConnection.close());
      const worker = await createAgentWorker({
        connection: nativeConnection,
        address: resolved.address,
        namespace,
        ...(encryption ? { encryption } : {}),
        taskQueue,
        memoryStore,
        ...(usageStore ? { usageStore } : {}),
        telemetry,
        agents: {
          [this.#name]: {
            ...definition,
            llm: this.#llm,
            builtinTools: [...(definition.builtinTools ?? []), ...this.#builtins],
            skillRegistry: this.#registry,
          },
        },
      });
      const running = worker.run();
      cleanup.push(async () => {
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running.catch(() => undefined);
      });
      const serving = running.then(() => {
        throw new Error('The agent worker stopped (the agent was closed).');
      });
      serving.catch(() => undefined);
      const dataConverter = encryptionDataConverter(encryption);
      // The worker's connection: runs start eagerly on the worker above.
      const client = new Client({
        connection: nativeConnection,
        namespace,
        ...(dataConverter ? { dataConverter } : {}),
        interceptors: telemetryClientInterceptors(telemetry),
      });
      return {
        agents: new AgentClient({
          client,
          taskQueue,
          summaryIncludesPrompt,
          ...(fairness ? { fairness } : {}),
        }),
        client,
        namespace,
        taskQueue,
        worker,
        memoryStore,
        serving,
        stop: stopAll,
      };
    } catch (error) {
      await stopAll();
      throw error;
    }
  }
}

/** The namespace a `temporal` option resolves to (a profile may name it); 'default' if it cannot resolve yet. */
function namespaceOf(temporal: TemporalConnectionOptions): string {
  try {
    return resolveTemporalConnection(temporal).namespace;
  } catch {
    return temporal.namespace ?? 'default'; // the first run reports the misconfiguration
  }
}
