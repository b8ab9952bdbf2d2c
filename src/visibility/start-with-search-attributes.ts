import { CREATE_SEARCH_ATTRIBUTES_COMMAND } from './search-attributes.ts';

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
          `Register them once with \`toolkit-agent setup\`, or: ${CREATE_SEARCH_ATTRIBUTES_COMMAND}`,
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
