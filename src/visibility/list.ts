import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { ConfigurationError } from '../errors.ts';
import { TOOLKIT_AGENT, TOOLKIT_TENANT } from './search-attributes.ts';

/** The state of a run or chat session as Temporal's visibility reports it. */
export type AgentRunStatus =
  | 'running'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'terminated'
  | 'timed_out'
  | 'continued_as_new'
  | 'paused'
  | 'unknown';

export interface ListRunsOptions {
  /** Only this agent's runs (needs the `ToolkitAgent` search attribute on the cluster). */
  agent?: string;
  /** Only this tenant's runs (needs the `ToolkitTenant` search attribute on the cluster). */
  tenant?: string;
  /** Only runs in this state. Default: every state except `continued_as_new` (a chat session's earlier runs). */
  status?: AgentRunStatus;
  /** `run` (plain and deep runs) or `chat` (chat sessions). Default: both. */
  kind?: 'run' | 'chat';
  /** At most this many (default 100). */
  limit?: number;
  /** Leave out sub-agent runs (child workflows of another run): only the runs started from outside. */
  topLevel?: boolean;
}

/** One run or chat session in a listing. */
export interface AgentRunListing {
  workflowId: string;
  agent: string | undefined;
  tenant: string | undefined;
  kind: 'run' | 'chat';
  status: AgentRunStatus;
  startTime: Date;
  closeTime: Date | undefined;
  /** A sub-agent run's parent run (its workflow id); undefined for a run started from outside. */
  parentWorkflowId?: string;
  /** The credential keys a running run or session waits for a user to authorize (empty when none). */
  waitingForAuthorization: string[];
}

const RUN_TYPES = ['agentRun', 'deepAgentRun'];
const CHAT_TYPES = ['chatSession'];
const STATUS_QUERY: Partial<Record<AgentRunStatus, string>> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Canceled',
  terminated: 'Terminated',
  timed_out: 'TimedOut',
  continued_as_new: 'ContinuedAsNew',
  paused: 'Paused',
};

/**
 * The runs and chat sessions of one task queue that match `opts`, through Temporal's visibility
 * API (eventually consistent: a run started a moment ago may not be listed yet). SQL visibility
 * cannot order by start time, so the first `limit` matches in the server's order (running first,
 * then by close time) are returned newest-started first.
 */
export async function listAgentRuns(
  client: Client,
  taskQueue: string,
  opts: ListRunsOptions = {},
): Promise<AgentRunListing[]> {
  const limit = opts.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ConfigurationError(
      `list: limit must be a whole number of at least 1 (got ${String(opts.limit)}).`,
    );
  }
  const query = listQuery(taskQueue, opts);
  const found: AgentRunListing[] = [];
  for await (const info of client.workflow.list({ query, pageSize: Math.min(limit, 1000) })) {
    found.push(toListing(info));
    if (found.length >= limit) break;
  }
  return found.sort((a, b) => b.startTime.getTime() - a.startTime.getTime());
}

/** The visibility query for `opts`, e.g. `TaskQueue = 'q' AND WorkflowType IN ('agentRun', 'deepAgentRun') AND ToolkitAgent = 'support'`. */
export function listQuery(taskQueue: string, opts: ListRunsOptions): string {
  const types =
    opts.kind === 'run' ? RUN_TYPES : opts.kind === 'chat' ? CHAT_TYPES : [...RUN_TYPES, ...CHAT_TYPES];
  if (opts.kind !== undefined && opts.kind !== 'run' && opts.kind !== 'chat') {
    throw new ConfigurationError(`list: kind is 'run' or 'chat' (got ${JSON.stringify(opts.kind)}).`);
  }
  const clauses = [`TaskQueue = ${quote(taskQueue)}`, `WorkflowType IN (${types.map(quote).join(', ')})`];
  if (opts.agent !== undefined) clauses.push(`${TOOLKIT_AGENT.name} = ${quote(opts.agent)}`);
  if (opts.tenant !== undefined) clauses.push(`${TOOLKIT_TENANT.name} = ${quote(opts.tenant)}`);
  if (opts.topLevel) clauses.push('ParentWorkflowId IS NULL');
  if (opts.status === undefined) {
    clauses.push(`ExecutionStatus != 'ContinuedAsNew'`);
  } else {
    const status = Object.hasOwn(STATUS_QUERY, opts.status) ? STATUS_QUERY[opts.status] : undefined;
    if (!status) {
      throw new ConfigurationError(
        `list: status ${JSON.stringify(opts.status)} is not one of ${Object.keys(STATUS_QUERY).join(', ')}.`,
      );
    }
    clauses.push(`ExecutionStatus = '${status}'`);
  }
  return clauses.join(' AND ');
}

function toListing(info: WorkflowExecutionInfo): AgentRunListing {
  const memo = info.memo ?? {};
  const agent = info.typedSearchAttributes.get(TOOLKIT_AGENT) ?? stringOrUndefined(memo.agent);
  const tenant = info.typedSearchAttributes.get(TOOLKIT_TENANT) ?? stringOrUndefined(memo.tenant);
  return {
    workflowId: info.workflowId,
    agent,
    tenant,
    kind: CHAT_TYPES.includes(info.type) ? 'chat' : 'run',
    status: toStatus(info.status.name),
    waitingForAuthorization:
      info.status.name === 'RUNNING'
        ? (stringOrUndefined(memo.waiting_for_authorization)?.split(',').filter(Boolean) ?? [])
        : [],
    startTime: info.startTime,
    closeTime: info.closeTime,
    ...(info.parentExecution?.workflowId ? { parentWorkflowId: info.parentExecution.workflowId } : {}),
  };
}

function toStatus(name: WorkflowExecutionInfo['status']['name']): AgentRunStatus {
  return name === 'UNSPECIFIED' || name === 'UNKNOWN' ? 'unknown' : (name.toLowerCase() as AgentRunStatus);
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A string literal of the visibility query language. */
function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
