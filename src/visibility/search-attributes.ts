import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/** The Keyword search attribute naming the agent of every run and chat session. */
export const TOOLKIT_AGENT = defineSearchAttributeKey('ToolkitAgent', SearchAttributeType.KEYWORD);
/** The Keyword search attribute naming the tenant (end user) of every run and chat session that has one. */
export const TOOLKIT_TENANT = defineSearchAttributeKey('ToolkitTenant', SearchAttributeType.KEYWORD);

/** The one command that registers both search attributes on a cluster (add `--namespace` for another namespace). */
export const CREATE_SEARCH_ATTRIBUTES_COMMAND =
  'temporal operator search-attribute create --name ToolkitAgent --name ToolkitTenant --type Keyword';

/** `temporal server start-dev` arguments that register both search attributes at start. */
export const DEV_SERVER_SEARCH_ATTRIBUTE_ARGS = [
  '--search-attribute',
  `${TOOLKIT_AGENT.name}=Keyword`,
  '--search-attribute',
  `${TOOLKIT_TENANT.name}=Keyword`,
];

/** The search attributes of a run or session: its agent, and its tenant when it has one. */
export function agentSearchAttributes(agent: string, tenant?: string): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [{ key: TOOLKIT_AGENT, value: agent }];
  if (tenant !== undefined) pairs.push({ key: TOOLKIT_TENANT, value: tenant });
  return pairs;
}

/** What the memo of a run or session holds, so listings show agent and tenant even without the search attributes. */
export function agentMemo(agent: string, tenant?: string): Record<string, string> {
  return tenant === undefined ? { agent } : { agent, tenant };
}

/** Per client: whether its cluster lacks the search attributes (learned from the first refused start). */
const missingOn = new WeakSet<object>();

/**
 * Starts a workflow with the search attributes, and on a cluster that does not define them starts it
 * again without them, warning once per client: runs still work there, they are only not listed by
 * agent or tenant.
 */
export async function startWithSearchAttributes<T>(
  client: object,
  start: (withSearchAttributes: boolean) => Promise<T>,
): Promise<T> {
  if (missingOn.has(client)) return start(false);
  try {
    return await start(true);
  } catch (error) {
    if (!isUndefinedSearchAttributeError(error)) throw error;
    if (!missingOn.has(client)) {
      missingOn.add(client);
      process.emitWarning(
        'The Temporal namespace does not define the search attributes ToolkitAgent and ToolkitTenant: ' +
          'runs start without them and AgentClient.list cannot filter by agent or tenant. ' +
          `Register them once with: ${CREATE_SEARCH_ATTRIBUTES_COMMAND}`,
        { code: 'TOOLKIT_AGENT_SEARCH_ATTRIBUTES' },
      );
    }
    return start(false);
  }
}

/**
 * Whether the cluster refused a request because one of our search attributes is not defined in its
 * namespace ("Namespace x has no mapping defined for search attribute ToolkitAgent" on SQL
 * visibility, "search attribute ToolkitAgent is not defined" on Elasticsearch).
 */
export function isUndefinedSearchAttributeError(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const details = (e as { details?: unknown }).details;
    const text = typeof details === 'string' ? `${e.message} ${details}` : e.message;
    if (/search attribute/i.test(text) && /Toolkit(Agent|Tenant)/.test(text)) return true;
  }
  return false;
}
