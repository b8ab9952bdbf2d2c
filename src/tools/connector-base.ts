import { z } from 'zod';
import type { CredentialRecord, CredentialStore, CredentialType } from '../credentials/types.ts';
import { secretValuesOf } from '../credentials/types.ts';
import { ConfigurationError, CredentialError } from '../errors.ts';
import { assertUsable, canRefresh, needsRefresh, refreshCredential } from '../oauth/refresh.ts';
import type { SecretSet } from '../redaction.ts';
import { noteCredentialUse } from './call-scope.ts';
import type { ToolSchema } from '../common/messages.ts';

/** What a tool returns: text for the model and structured data for the caller. */
export interface ToolOutput {
  text: string;
  metadata: Record<string, unknown>;
  /** Tools to give the model from the next step on (`tool_search` uses it to load what it found). */
  loadTools?: string[];
  /** A skill the model loaded (`load_skill`): it counts as used, and its tools are attached from the next step. */
  loadedSkill?: LoadedSkill;
}

/** A skill loaded during a run, and the tools it attaches (those this worker has, and those it lacks). */
export interface LoadedSkill {
  id: string;
  tools: string[];
  unavailableTools: string[];
}

/**
 * Passed as the first argument to {@link BaseConnectorTool.run}. Lives only inside the `invokeTool`
 * activity: it may hold secrets, and nothing in it reaches workflow history.
 */
export interface ToolContext {
  /** Name of the agent the run belongs to. */
  agent: string;
  workflowId: string;
  runId: string;
  /** The model's id for this call; the result is paired with it. */
  callId: string;
  /** The end user whose credentials apply, when the run was started for one. */
  tenant?: string;
  /** The agent's shared credential store. */
  credentialStore?: CredentialStore;
  /** Secret values read during this call; outputs and errors are redacted against them. */
  secrets: SecretSet;
  /** Aborted when Temporal cancels the activity or its timeout passes. */
  signal: AbortSignal;
  /** Tells Temporal the call is alive (long calls). */
  heartbeat(details?: unknown): void;
  /** Asks the run's model a one-off question (no tools, no conversation); answers its text. */
  askModel?(prompt: string): Promise<string>;
  /** The memory-store key of the run's conversation (a chat session's id). */
  conversationId?: string;
  /**
   * Whose long-term memory the run reads and writes (the agent's `memory.resource`, scoped by the
   * tenant), when the agent has memory and the run a resource (docs/memory.md).
   */
  memoryResource?: string;
}

/** What a `needsApproval` function is told about the call it decides on. */
export interface ApprovalContext {
  agent: string;
  tenant?: string;
  workflowId: string;
  runId: string;
  callId: string;
}

/** `true`: every call waits for a person's approval; a function decides per call (on the worker). */
export type NeedsApproval =
  boolean | ((args: Record<string, unknown>, context: ApprovalContext) => boolean | Promise<boolean>);

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The base of every connector and custom tool (docs/connectors.md). Subclasses declare `name`,
 * `description` and a zod `parameters` object, and implement `run`. Credentials come from
 * {@link BaseConnectorTool.getCredential}, which reads the store inside the activity and registers
 * every secret it returns for redaction.
 *
 * The type argument is the `parameters` schema: `run` then gets its parsed output, typed. A class
 * without one (`extends BaseConnectorTool`) gets `Record<string, unknown>`, as before. For a tool
 * without a class, see {@link defineTool}.
 *
 * @example
 * const parameters = z.object({ city: z.string() });
 * class WeatherTool extends BaseConnectorTool<typeof parameters> {
 *   readonly name = 'weather';
 *   readonly description = 'Current weather for a city';
 *   readonly parameters = parameters;
 *   protected override readonly defaultCredentialKey = 'weather';
 *   async run(context: ToolContext, args: z.infer<typeof parameters>) {
 *     const { token } = await this.getCredential(context); // args.city is a string
 *     ...
 *   }
 * }
 */
export abstract class BaseConnectorTool<P extends z.ZodType = z.ZodType<Record<string, unknown>>> {
  abstract readonly name: string;
  abstract readonly description: string;
  abstract readonly parameters: P;
  /** The credential key used when the constructor names none (e.g. `custom_api`). */
  protected readonly defaultCredentialKey: string | undefined = undefined;
  /**
   * The `toolkit-agent` command that logs in and stores the tool's default credential by OAuth
   * (e.g. `auth google --services mail`): a missing credential's message names it. Undefined for tools
   * whose credential is a token one stores.
   */
  protected readonly loginCommand: string | undefined = undefined;
  /**
   * The metadata a stored credential of this tool needs, as `creds set` takes it (e.g.
   * `base_url=https://api.example.com`): a missing credential's message gives the whole command.
   */
  protected readonly credentialMetadataExample: string | undefined = undefined;
  /**
   * When the service rejects this tool's OAuth token (401) although it looked valid: refresh it once
   * and repeat the call (only when the 401 proves nothing was done). Set false to see the 401 as is.
   */
  readonly refreshOnRejection: boolean = true;
  /** The record types this tool can use; a record of another type fails before any network call. */
  protected readonly credentialTypes: readonly CredentialType[] | undefined = undefined;
  /**
   * Calls of this tool wait for a person's decision before they run (`approval_requested`;
   * `run.approve` / `run.reject`). An agent's `approval.tools` overrides it.
   */
  needsApproval: NeedsApproval | undefined;
  /**
   * Calls of this tool have no round trip of their own through the server: the next model step runs
   * them before it asks the model, or (when their step also asks for a tool that is not fast, or
   * they wait for approval) they run as Temporal local activities, in the workflow task that asked
   * for them (docs/connectors.md, "Fast tools"). Only for tools that
   * finish in milliseconds and do no network I/O: a call that overruns the agent's
   * `timeouts.fastToolStartToCloseMs` is failed and run again as a normal activity. An agent's
   * `fastTools` marks tools fast too. Default false.
   */
  readonly fast: boolean;
  readonly #credentialKey: string | undefined;
  readonly #credentialStore: CredentialStore | undefined;

  constructor(
    opts: {
      credentialKey?: string;
      credentialStore?: CredentialStore;
      needsApproval?: NeedsApproval;
      /** Run this tool's calls without a round trip of their own (see the tool's `fast`). */
      fast?: boolean;
    } = {},
  ) {
    this.fast = opts.fast ?? false;
    this.#credentialKey = opts.credentialKey;
    this.#credentialStore = opts.credentialStore;
    this.needsApproval = opts.needsApproval;
  }

  /** The record name this tool reads: the constructor's `credentialKey`, else the tool's default, else its name. */
  get credentialKey(): string {
    return this.#credentialKey ?? this.defaultCredentialKey ?? this.name;
  }

  /** The function-calling schema given to the model; JSON Schema derived from `parameters`. */
  schema(): ToolSchema {
    const parameters = z.toJSONSchema(this.parameters, { io: 'input', unrepresentable: 'any' }) as Record<
      string,
      unknown
    >;
    delete parameters.$schema;
    return { type: 'function', function: { name: this.name, description: this.description, parameters } };
  }

  /** Runs one call; `args` are the model's arguments already parsed by `parameters`. */
  abstract run(context: ToolContext, args: z.infer<P>): Promise<ToolOutput>;

  /**
   * The stored record under {@link credentialKey} for the run's tenant. Throws {@link CredentialError}
   * before any network call when the record is missing or expired.
   */
  protected async getCredential(context: ToolContext): Promise<CredentialRecord> {
    const store = this.#credentialStore ?? context.credentialStore;
    const key = this.credentialKey;
    if (!store) {
      throw new CredentialError(
        `Tool "${this.name}" needs the credential "${key}", but no credential store was configured. ` +
          'Pass `credentialStore` to the agent (or to the tool).',
      );
    }
    const record = await store.get(key, { tenant: context.tenant });
    if (!record) {
      const whose = context.tenant ? ` for tenant "${context.tenant}"` : '';
      const tenant = context.tenant ? ` --tenant ${context.tenant}` : '';
      const meta = this.credentialMetadataExample ? ` --meta ${this.credentialMetadataExample}` : '';
      const store = `\`toolkit-agent creds set ${key}${tenant}${meta}\``;
      // Logging in stores the tool's default key; a key of the user's own is stored as a token.
      const login = this.loginCommand && key === this.defaultCredentialKey ? this.loginCommand : undefined;
      throw new CredentialError(
        `No credential "${key}"${whose} in the credential store: ` +
          (login
            ? `log in with \`toolkit-agent ${login}${tenant}\` (or store a token with ${store})`
            : `store it with ${store}`) +
          ` (in code: store.put({ name: '${key}', type: 'bearer', token: '...' })).`,
        { authorization: { credentialKey: key, reason: 'missing' } },
      );
    }
    for (const value of secretValuesOf(record)) context.secrets.add(value);
    assertUsable(record);
    if (this.credentialTypes && !this.credentialTypes.includes(record.type)) {
      throw new CredentialError(
        `The credential "${key}" has type "${record.type}", which ${this.name} cannot use. ` +
          `Store it with type ${this.credentialTypes.map((t) => `'${t}'`).join(', ')}.`,
      );
    }
    if (needsRefresh(record, Date.now()) && canRefresh(record)) {
      const refreshed = await refreshCredential(store, key, context.tenant);
      for (const value of secretValuesOf(refreshed)) context.secrets.add(value);
      noteCredentialUse({ store, key, tenant: context.tenant, record: refreshed });
      return refreshed;
    }
    const expiresAt = record.metadata?.expires_at;
    if (typeof expiresAt === 'string' && Date.parse(expiresAt) <= Date.now()) {
      const why = record.refresh_token
        ? 'and cannot be refreshed (its record has no token_endpoint or client_id)'
        : 'and has no refresh_token to renew it with';
      throw new CredentialError(
        `The credential "${key}" expired at ${expiresAt} ${why}. Authorize again to store a fresh token.`,
      );
    }
    noteCredentialUse({ store, key, tenant: context.tenant, record });
    return record;
  }

  /**
   * After the service answered 401 to `rejected`: refreshes the OAuth token once (single-flight,
   * like proactive refresh) and returns the new record, for one retry of the call. Throws
   * {@link CredentialError} when the record cannot be refreshed.
   */
  protected async refreshAfterRejection(
    context: ToolContext,
    rejected: CredentialRecord,
  ): Promise<CredentialRecord> {
    const store = this.#credentialStore ?? context.credentialStore;
    if (!store)
      throw new CredentialError(
        `Tool "${this.name}" has no credential store to refresh "${this.credentialKey}" in.`,
      );
    const refreshed = await refreshCredential(store, this.credentialKey, context.tenant, Date.now, {
      rejectedToken: rejected.token,
    });
    for (const value of secretValuesOf(refreshed)) context.secrets.add(value);
    return refreshed;
  }
}

/** Refuses a tool definition that no model could call, when the agent is created rather than mid-run. */
export function assertValidTool(tool: BaseConnectorTool): void {
  if (!(tool instanceof BaseConnectorTool)) {
    throw new ConfigurationError(
      'Every tool must extend BaseConnectorTool (toolkit-agent/tools/connector_base).',
    );
  }
  if (!TOOL_NAME.test(tool.name)) {
    throw new ConfigurationError(
      `Tool name ${JSON.stringify(tool.name)} must be 1-64 letters, digits, _ or -.`,
    );
  }
  if (!tool.description?.trim())
    throw new ConfigurationError(`Tool "${tool.name}" needs a description for the model.`);
  if (!(tool.parameters instanceof z.ZodObject)) {
    throw new ConfigurationError(`Tool "${tool.name}": parameters must be a zod object (z.object({...})).`);
  }
  tool.schema();
}
