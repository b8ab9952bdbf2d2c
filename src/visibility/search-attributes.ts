import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/** The Keyword search attribute naming the agent of every run and chat session. */
export const TOOLKIT_AGENT = defineSearchAttributeKey('ToolkitAgent', SearchAttributeType.KEYWORD);
/** The Keyword search attribute naming the tenant (end user) of every run and chat session that has one. */
export const TOOLKIT_TENANT = defineSearchAttributeKey('ToolkitTenant', SearchAttributeType.KEYWORD);

/**
 * The one Temporal CLI command that registers both search attributes on a cluster (add `--namespace`
 * for another namespace): a `--type` for each `--name`, as the CLI pairs them (with one `--type`, it
 * registers the first name only). `toolkit-agent setup` does the same through the operator service.
 */
export const CREATE_SEARCH_ATTRIBUTES_COMMAND =
  'temporal operator search-attribute create --name ToolkitAgent --type Keyword --name ToolkitTenant --type Keyword';

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
