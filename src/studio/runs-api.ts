import type { AgentClient } from '../client/agent-client.ts';
import type { AgentEvent } from '../common/events.ts';
import type { PendingApproval } from '../common/control.ts';
import type { PendingAuthorization } from '../common/authorization.ts';
import type { AgentRunListing, AgentRunStatus, ListRunsOptions } from '../visibility/list.ts';

/** A run's timeline: its own events, and each sub-agent run's under the call that started it. */
export interface RunTimeline {
  workflowId: string;
  status: string;
  events: AgentEvent[];
  /** The timelines of its sub-agent runs, by the child run's workflow id. */
  children: Record<string, RunTimeline>;
  pendingApprovals: PendingApproval[];
  pendingAuthorizations: PendingAuthorization[];
}

/** One call (or a sub-agent's call) waiting across runs, with the run that decides it. */
export interface WaitingCall {
  workflowId: string;
  agent: string | undefined;
  tenant: string | undefined;
  kind: 'approval' | 'authorization';
  call_id: string;
  tool: string;
  args?: Record<string, unknown>;
  url?: string;
  requested_at: string;
  sub_run?: string;
}

const MAX_DEPTH = 4;
const STATUSES: AgentRunStatus[] = [
  'running',
  'completed',
  'failed',
  'cancelled',
  'terminated',
  'timed_out',
  'paused',
];

/** The runs the Runs view lists, filtered by the query's `agent`, `tenant`, `status` and `kind` (through Temporal visibility). */
export function listRuns(client: AgentClient, params: URLSearchParams): Promise<AgentRunListing[]> {
  const status = params.get('status') || undefined;
  const kind = params.get('kind') || undefined;
  const opts: ListRunsOptions = {
    limit: 200,
    ...(params.get('agent') ? { agent: params.get('agent')! } : {}),
    ...(params.get('tenant') ? { tenant: params.get('tenant')! } : {}),
    ...(status && STATUSES.includes(status as AgentRunStatus) ? { status: status as AgentRunStatus } : {}),
    ...(kind === 'run' || kind === 'chat' ? { kind } : {}),
  };
  return client.list(opts);
}

/** The timeline of `workflowId` as it stands now (a running run's so far), its sub-agent runs nested. */
export async function runTimeline(client: AgentClient, workflowId: string, depth = 0): Promise<RunTimeline> {
  const handle = client.getHandle(workflowId);
  const description = await handle.workflow.describe();
  const running = description.status.name === 'RUNNING';
  const events = await handle.listEvents();
  const children: Record<string, RunTimeline> = {};
  if (depth < MAX_DEPTH) {
    for (const event of events) {
      const child = event.payload.child_run;
      if (event.type === 'tool_called' && typeof child === 'string' && !(child in children)) {
        children[child] = await runTimeline(client, child, depth + 1).catch(() => emptyTimeline(child));
      }
    }
  }
  return {
    workflowId,
    status: description.status.name.toLowerCase(),
    events,
    children,
    pendingApprovals: running && depth === 0 ? await handle.pendingApprovals() : [],
    pendingAuthorizations: running && depth === 0 ? await handle.pendingAuthorizations() : [],
  };
}

/** Every approval and authorization that a running run (or chat session) of the task queue waits for now. */
export async function waitingCalls(client: AgentClient): Promise<WaitingCall[]> {
  const running = await client.list({ status: 'running', topLevel: true, limit: 200 });
  const waiting = await Promise.all(
    running.map(async (run): Promise<WaitingCall[]> => {
      const handle = client.getHandle(run.workflowId);
      const of = { workflowId: run.workflowId, agent: run.agent, tenant: run.tenant };
      const [approvals, authorizations] = await Promise.all([
        handle.pendingApprovals().catch(() => []),
        handle.pendingAuthorizations().catch(() => []),
      ]);
      return [
        ...approvals.map((a) => ({
          ...of,
          kind: 'approval' as const,
          call_id: a.call_id,
          tool: a.tool,
          args: a.args,
          requested_at: a.requested_at,
          ...(a.sub_run ? { sub_run: a.sub_run } : {}),
        })),
        ...authorizations.map((a) => ({
          ...of,
          kind: 'authorization' as const,
          call_id: a.call_id,
          tool: a.tool,
          url: a.url,
          requested_at: a.requested_at,
        })),
      ];
    }),
  );
  return waiting.flat();
}

/** Decides a waiting call of `workflowId` from the page: `{ approved, reason? }`. */
export async function decideCall(
  client: AgentClient,
  workflowId: string,
  callId: string,
  decision: { approved?: unknown; reason?: unknown },
): Promise<void> {
  const handle = client.getHandle(workflowId);
  if (decision.approved === true) await handle.approve(callId, { note: 'Approved in the studio.' });
  else
    await handle.reject(
      callId,
      typeof decision.reason === 'string' ? decision.reason : 'Rejected in the studio.',
    );
}

function emptyTimeline(workflowId: string): RunTimeline {
  return {
    workflowId,
    status: 'unknown',
    events: [],
    children: {},
    pendingApprovals: [],
    pendingAuthorizations: [],
  };
}
