/**
 * Errors with a stable `code`. Activities turn them into Temporal `ApplicationFailure`s whose `type`
 * is the class name and whose retryability follows `retryable`.
 */
export class ToolkitError extends Error {
  readonly code: string;
  /** Whether trying the same call again may succeed. */
  readonly retryable: boolean;
  /** Retry-After, where the service gave one. */
  readonly retryAfterMs: number | undefined;

  constructor(
    code: string,
    message: string,
    options: { retryable?: boolean; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/**
 * A credential is missing, malformed, or expired and not refreshable (thrown before any network
 * call), or the service rejected it (`rejected`: HTTP 401 or the service's own word for it). A
 * rejected OAuth token is refreshed once and the call repeated, by the tool invocation itself.
 */
export class CredentialError extends ToolkitError {
  /** The service refused the credential (401): the request was not carried out. */
  readonly rejected: boolean;
  /** Set when only the user can fix it by authorizing (no record, `needs_reauth`): see {@link AuthorizationNeed}. */
  readonly authorization: AuthorizationNeed | undefined;
  constructor(
    message: string,
    options?: { cause?: unknown; rejected?: boolean; authorization?: AuthorizationNeed },
  ) {
    super('CREDENTIAL', message, options);
    this.rejected = options?.rejected ?? false;
    this.authorization = options?.authorization;
  }
}

/**
 * What a tool call needs the user to authorize: the credential key, why (`missing` record, a refused
 * refresh token `needs_reauth`, `insufficient_scope`) and, for a scope, which ones. An agent with
 * `authorization` turns such an error into an `authorization_required` wait instead of a failure.
 */
export interface AuthorizationNeed {
  credentialKey: string;
  reason: 'missing' | 'needs_reauth' | 'insufficient_scope';
  /** The scopes the call lacks, when the service or the tool named them. */
  scopes?: string[];
}

/** The arguments of a tool call do not match the tool's schema. Goes back to the model. */
export class ToolInputError extends ToolkitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TOOL_INPUT', message, options);
  }
}

/** The upstream service answered with an error status, or could not be reached. */
export class UpstreamError extends ToolkitError {
  readonly status: number | undefined;
  constructor(
    message: string,
    options: { status?: number; retryable?: boolean; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super('UPSTREAM', message, options);
    this.status = options.status;
  }
}

/** The model provider refused or failed a request. */
export class ModelError extends ToolkitError {
  readonly status: number | undefined;
  constructor(
    message: string,
    options: { status?: number; retryable?: boolean; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super('MODEL', message, options);
    this.status = options.status;
  }
}

/**
 * The request did not fit the model's context window (the provider said "prompt is too long", or the
 * local model's context is full). Agents with a `context` budget compact the conversation and retry
 * the step once instead of failing.
 */
export class ContextOverflowError extends ModelError {
  /** Tokens the provider counted in the prompt, when it said. */
  readonly tokens: number | undefined;
  /** The provider's limit, when it said. */
  readonly limit: number | undefined;
  constructor(
    message: string,
    options: { status?: number; tokens?: number; limit?: number; cause?: unknown } = {},
  ) {
    super(message, { status: options.status, retryable: false, cause: options.cause });
    this.tokens = options.tokens;
    this.limit = options.limit;
  }
}

/** The upstream service rate-limited the call; retried after Retry-After. */
export class RateLimitError extends ToolkitError {
  constructor(message: string, options: { retryAfterMs?: number; cause?: unknown } = {}) {
    super('RATE_LIMIT', message, { ...options, retryable: true });
  }
}

/** The credential lacks the permission or scope the call needs. */
export class PermissionError extends ToolkitError {
  /** Set when the token lacks a scope the user can grant: see {@link AuthorizationNeed}. */
  readonly authorization: AuthorizationNeed | undefined;
  constructor(message: string, options?: { cause?: unknown; authorization?: AuthorizationNeed }) {
    super('PERMISSION', message, options);
    this.authorization = options?.authorization;
  }
}

/** The thing asked for does not exist, or is not shared with this credential. */
export class NotFoundError extends ToolkitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('NOT_FOUND', message, options);
  }
}

/** The agent or worker is set up wrongly (unknown agent name, duplicate tool name, ...). */
export class ConfigurationError extends ToolkitError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONFIGURATION', message, options);
  }
}

/** A run ended in failure (a non-retryable model error, retries exhausted, cancelled, terminated). */
export class RunFailedError extends ToolkitError {
  readonly workflowId: string;
  constructor(workflowId: string, reason: string, options?: { cause?: unknown }) {
    super('RUN_FAILED', `Agent run ${workflowId} failed: ${reason}`, options);
    this.workflowId = workflowId;
  }
}

/**
 * A run refused a control request (cancel, approve, reject): the call id is unknown or already
 * decided, or nothing is running. The run itself is unaffected; the message says what to do.
 */
export class ControlRefusedError extends ToolkitError {
  readonly workflowId: string;
  constructor(workflowId: string, reason: string, options?: { cause?: unknown }) {
    super('CONTROL_REFUSED', `${workflowId} refused the request: ${reason}`, options);
    this.workflowId = workflowId;
  }
}

/**
 * A guardrail ended the run or chat turn (`stop_reason: 'guardrail'`): which check (`check`, of
 * `kind` `input`, `output` or `tool`), what it said (`reason`), and for a tool check the tool and
 * whether it tripped before the call ran or on its result. `result` is the run's result (usage,
 * events' worth of metadata); a chat session goes on to its next turn.
 */
export class GuardrailTripped extends ToolkitError {
  readonly workflowId: string;
  readonly kind: 'input' | 'output' | 'tool';
  readonly check: string;
  readonly reason: string;
  readonly tool: string | undefined;
  readonly phase: 'before' | 'after' | undefined;
  /** The streamed text of the answer was withdrawn (a streaming output check tripped). */
  readonly withdrawn: boolean;
  readonly result: unknown;

  constructor(
    workflowId: string,
    trip: {
      kind: 'input' | 'output' | 'tool';
      check: string;
      reason: string;
      tool?: string;
      phase?: 'before' | 'after';
      withdrawn?: boolean;
    },
    result?: unknown,
  ) {
    const where = trip.tool
      ? ` on ${trip.tool} (${trip.phase === 'after' ? 'its result' : 'its arguments'})`
      : '';
    super(
      'GUARDRAIL_TRIPPED',
      `Agent run ${workflowId} was stopped by the ${trip.kind} guardrail "${trip.check}"${where}: ${trip.reason}`,
    );
    this.workflowId = workflowId;
    this.kind = trip.kind;
    this.check = trip.check;
    this.reason = trip.reason;
    this.tool = trip.tool;
    this.phase = trip.phase;
    this.withdrawn = trip.withdrawn === true;
    this.result = result;
  }
}

/** One way a structured answer did not match its schema: the JSON path (`''` for the whole answer) and what. */
export interface OutputValidationIssue {
  path: string;
  message: string;
}

/**
 * A structured run (`output`) ended with `stop_reason: 'invalid_output'`: its answer still did not
 * match the schema after `outputRepairs` repair steps. Carries the failing `paths`, each `issue`, and
 * the last raw answer. The stored conversation keeps every answer and repair message.
 */
export class OutputValidationError extends ToolkitError {
  readonly workflowId: string;
  /** The JSON paths that failed, e.g. `priority` or `rows[2].amount` (`''`: the whole answer). */
  readonly paths: string[];
  readonly issues: OutputValidationIssue[];
  /** The model's last answer, as written. */
  readonly raw: string;
  /** Answering steps the run made (1 + its repairs). */
  readonly attempts: number;

  constructor(
    workflowId: string,
    failure: { issues: OutputValidationIssue[]; raw: string; attempts: number },
    options?: { cause?: unknown },
  ) {
    const first = failure.issues[0];
    const detail = first ? `${first.path || '(the whole answer)'}: ${first.message}` : 'no details';
    super(
      'INVALID_OUTPUT',
      `Agent run ${workflowId} gave no answer matching its output schema after ${failure.attempts} ` +
        `attempt(s) (${detail}${failure.issues.length > 1 ? `, and ${failure.issues.length - 1} more` : ''}). ` +
        'Loosen the schema, describe its fields to the model, or raise outputRepairs.',
      options,
    );
    this.workflowId = workflowId;
    this.issues = failure.issues;
    this.paths = [...new Set(failure.issues.map((issue) => issue.path))];
    this.raw = failure.raw;
    this.attempts = failure.attempts;
  }
}

/** Which quota a run met (see `quotas` on `createAgentWorker` and on an agent). */
export type QuotaName = 'maxTokensPerDay' | 'maxRunsPerMinute' | 'maxConcurrentRuns';

/** What a {@link QuotaExceededError} carries: plain data, so it crosses Temporal as a failure's detail. */
export interface QuotaExceededDetails {
  quota: QuotaName;
  /** The tenant whose quota it is (`''`: runs without a tenant). */
  tenant: string;
  /** The quota's limit. */
  limit: number;
  /** Set when it is a quota of this agent (`quotas` on the agent), counting only its runs. */
  agent?: string;
  /** When the quota frees up again (ISO 8601); absent for `maxConcurrentRuns`, which frees when a run ends. */
  resetsAt?: string;
}

/**
 * A tenant's quota refused a run at its start (`maxRunsPerMinute`, `maxConcurrentRuns`, or
 * `maxTokensPerDay` already spent): nothing ran. Names the quota and when it resets (`resetsAt`).
 * `AgentClient.run()` and a handle's `result()` reject with it; triggers and schedules log it.
 */
export class QuotaExceededError extends ToolkitError {
  readonly quota: QuotaName;
  readonly tenant: string;
  readonly limit: number;
  /** The agent whose own quota it is; undefined for the fleet's quotas (on `createAgentWorker`). */
  readonly agent: string | undefined;
  /** When the quota frees up again; undefined for `maxConcurrentRuns` (when one of the tenant's runs ends). */
  readonly resetsAt: Date | undefined;
  /** The refused run, when known. */
  readonly workflowId: string | undefined;

  constructor(details: QuotaExceededDetails, options?: { cause?: unknown; workflowId?: string }) {
    // Not retryable as it stands: start the run again after `resetsAt`.
    super('QUOTA_EXCEEDED', quotaMessage(details), {
      ...(details.resetsAt ? { retryAfterMs: Math.max(0, Date.parse(details.resetsAt) - Date.now()) } : {}),
      cause: options?.cause,
    });
    this.quota = details.quota;
    this.tenant = details.tenant;
    this.limit = details.limit;
    this.agent = details.agent;
    this.resetsAt = details.resetsAt ? new Date(details.resetsAt) : undefined;
    this.workflowId = options?.workflowId;
  }

  /** The data to send across Temporal (a failure's detail). */
  toDetails(): QuotaExceededDetails {
    return {
      quota: this.quota,
      tenant: this.tenant,
      limit: this.limit,
      ...(this.agent !== undefined ? { agent: this.agent } : {}),
      ...(this.resetsAt ? { resetsAt: this.resetsAt.toISOString() } : {}),
    };
  }
}

/** What a quota refusal says: whose quota, which, its limit and when it frees up. */
export function quotaMessage(details: QuotaExceededDetails): string {
  const who = details.tenant ? `Tenant "${details.tenant}"` : 'Runs without a tenant';
  const scope = details.agent !== undefined ? ` for agent "${details.agent}"` : '';
  const when = details.resetsAt
    ? `it resets at ${details.resetsAt}`
    : 'it frees up when one of its running runs ends';
  return `${who} reached its quota ${details.quota} (${details.limit})${scope}; ${when}.`;
}
