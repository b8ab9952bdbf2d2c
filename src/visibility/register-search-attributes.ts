import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { ConfigurationError } from '../errors.ts';
import { TOOLKIT_AGENT, TOOLKIT_TENANT } from './search-attributes.ts';

const { temporal } = proto;

const KEYWORD = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;

/** What `registerSearchAttributes` did on the namespace. */
export interface RegisteredSearchAttributes {
  /** The namespace the attributes are registered on. */
  namespace: string;
  /** The attributes it added (none when both were there). */
  added: string[];
  /** The attributes that were there already. */
  present: string[];
}

/**
 * Registers the `ToolkitAgent` and `ToolkitTenant` Keyword search attributes on the client's
 * namespace through Temporal's operator service (`AddSearchAttributes`), adding only those missing:
 * safe to run again. What `toolkit-agent setup` runs. Needs a cluster that lets this client manage
 * search attributes (a self-hosted one or the dev server; on Temporal Cloud, create them in the
 * Cloud UI or with `tcld`). See
 * https://docs.temporal.io/visibility#custom-search-attribute
 *
 * @throws ConfigurationError when one of them exists with another type than Keyword.
 * @example
 * const agents = await AgentClient.connect({ taskQueue: 'agents' });
 * const { added } = await registerSearchAttributes(agents.client);
 */
export async function registerSearchAttributes(client: Client): Promise<RegisteredSearchAttributes> {
  const { namespace, connection } = { namespace: client.options.namespace, connection: client.connection };
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const custom = listed.customAttributes ?? {};
  const added: string[] = [];
  const present: string[] = [];
  for (const { name } of [TOOLKIT_AGENT, TOOLKIT_TENANT]) {
    const type = custom[name];
    if (type === undefined || type === null) added.push(name);
    else if (type === KEYWORD) present.push(name);
    else {
      throw new ConfigurationError(
        `The search attribute ${name} exists on namespace "${namespace}" with type ` +
          `${temporal.api.enums.v1.IndexedValueType[type]}, not Keyword. Remove it ` +
          `(temporal operator search-attribute remove --name ${name}) and register it again.`,
      );
    }
  }
  if (added.length > 0) {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(added.map((name) => [name, KEYWORD])),
    });
  }
  return { namespace, added, present };
}
