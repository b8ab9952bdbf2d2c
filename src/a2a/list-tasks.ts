import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { Client } from '@temporalio/client';
import { chatWorkflowId } from '../common/chat.ts';
import { sessionStateQuery } from '../common/workflow-definitions.ts';
import { TOOLKIT_TENANT } from '../visibility/search-attributes.ts';
import { STATE } from './parts.ts';
import { parseTaskId, sessionIdFor, taskIdFor } from './task-ids.ts';
import { taskSourceOf } from './task-source-of.ts';

/** The page size when the request gives none, and the most A2A allows. */
const DEFAULT_PAGE = 50;
const MAX_PAGE = 100;

/**
 * `tasks/list` for one agent: with `contextId`, the tasks of that context (the turns of its chat
 * session, newest first, as far back as the session remembers turn ids; or the one run of a task
 * that is its own context); without, the agent's tasks in contexts of their own (its runs), newest
 * first, from Temporal visibility (`WorkflowId STARTS_WITH "a2a~<agent>~"`, and the tenant's only
 * when the request has one). Paged: `nextPageToken` is Temporal's (runs) or a position (turns).
 * Each task is read as `tasks/get` reads it; `status` keeps those in that state (a page may then
 * hold fewer); artifacts only with `includeArtifacts`. `statusTimestampAfter` is refused (a task's
 * status time is when it is read).
 */
export async function listAgentTasks(
  client: Client,
  agent: string,
  params: Partial<ListTasksRequest>,
  tenant: string | undefined,
  malformed: (message: string) => Error,
): Promise<ListTasksResponse> {
  const pageSize = params.pageSize ?? DEFAULT_PAGE;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE) {
    throw malformed(`pageSize must be a whole number from 1 to ${MAX_PAGE}; it was ${pageSize}.`);
  }
  // No filter: unset, unspecified (0), or what the SDK reads an absent state as (-1).
  const asked = Number(params.status ?? 0);
  const status = asked > 0 ? asked : undefined;
  if (status !== undefined && !Object.values<number>(STATE).includes(status)) {
    throw malformed(`status ${status} is no task state.`);
  }
  if (params.statusTimestampAfter) {
    throw malformed('statusTimestampAfter is not served: page through the tasks, newest first.');
  }
  const page = params.contextId
    ? await contextPage(client, agent, params.contextId, pageSize, params.pageToken, malformed)
    : await runPage(client, agent, tenant, pageSize, params.pageToken, malformed);
  const read = await Promise.all(page.taskIds.map((id) => taskSourceOf(client, id).read()));
  const tasks = read
    .filter((task) => status === undefined || Number(task.status?.state) === status)
    .map((task): Task => (params.includeArtifacts ? task : { ...task, artifacts: [] }));
  return { tasks, nextPageToken: page.next, pageSize, totalSize: page.total };
}

interface Page {
  taskIds: string[];
  next: string;
  total: number;
}

/** The agent's runs that are tasks, from visibility. */
async function runPage(
  client: Client,
  agent: string,
  tenant: string | undefined,
  pageSize: number,
  token: string | undefined,
  malformed: (message: string) => Error,
): Promise<Page> {
  if (token && !/^[A-Za-z0-9_-]+$/.test(token)) throw malformed('pageToken is not one this server gave.');
  const query = [
    `WorkflowType = 'agentRun'`,
    `WorkflowId STARTS_WITH ${quoted(`a2a~${agent}~`)}`,
    ...(tenant === undefined ? [] : [`${TOOLKIT_TENANT.name} = ${quoted(tenant)}`]),
  ].join(' AND ');
  const namespace = client.options.namespace;
  const [listed, counted] = await Promise.all([
    client.workflowService.listWorkflowExecutions({
      namespace,
      query,
      pageSize,
      ...(token ? { nextPageToken: Buffer.from(token, 'base64url') } : {}),
    }),
    client.workflowService.countWorkflowExecutions({ namespace, query }),
  ]);
  const taskIds = (listed.executions ?? []).flatMap((execution) => {
    const id = execution.execution?.workflowId;
    return id && parseTaskId(id)?.agent === agent ? [id] : [];
  });
  const next = listed.nextPageToken?.length ? Buffer.from(listed.nextPageToken).toString('base64url') : '';
  return { taskIds, next, total: Number(counted.count ?? 0) };
}

/** The tasks of a context: its one run, or the turns its chat session remembers, newest first. */
async function contextPage(
  client: Client,
  agent: string,
  contextId: string,
  pageSize: number,
  token: string | undefined,
  malformed: (message: string) => Error,
): Promise<Page> {
  // A task in a context of its own: the context is the task.
  if (parseTaskId(contextId)?.agent === agent && parseTaskId(contextId)?.context === undefined) {
    const exists = await taskSourceOf(client, contextId).exists();
    return { taskIds: exists ? [contextId] : [], next: '', total: exists ? 1 : 0 };
  }
  const start = token ? Number(token) : 0;
  if (!Number.isInteger(start) || start < 0) throw malformed('pageToken is not one this server gave.');
  const context = parseTaskId(taskIdFor(agent, 'list', contextId))!.context!;
  const session = client.workflow.getHandle(chatWorkflowId(sessionIdFor(agent, context)));
  const state = await session.query(sessionStateQuery).catch(() => undefined);
  const turns = [...(state?.recentTurnIds ?? [])].reverse();
  const taskIds = turns.slice(start, start + pageSize).map((turn) => taskIdFor(agent, turn, context));
  const next = start + pageSize < turns.length ? String(start + pageSize) : '';
  return { taskIds, next, total: turns.length };
}

/** A string literal of Temporal's visibility query language. */
function quoted(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
