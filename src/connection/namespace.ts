import { ConfigurationError } from '../errors.ts';

/** The one call {@link ensureNamespace} makes; both the client's and the worker's connections have it. */
export interface NamespaceDescriber {
  workflowService: { describeNamespace(request: { namespace: string }): Promise<unknown> };
}

const NOT_FOUND = 5; // gRPC status code

/**
 * Checks that `namespace` exists on the server before a worker is made for it. Temporal's worker
 * reports a missing namespace as a raw transport error and leaves its workflow threads running (the
 * process never exits), so the check comes first. Other failures (permissions, network) are left to
 * the calls that follow, which report them as they are.
 *
 * @throws ConfigurationError naming the namespace, where it was looked for, and how to create it.
 */
export async function ensureNamespace(
  connection: NamespaceDescriber,
  namespace: string,
  address?: string,
): Promise<void> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
  } catch (error) {
    if (isNamespaceNotFound(error)) throw namespaceNotFoundError(namespace, address);
  }
}

/** Whether an error from Temporal says the namespace does not exist. */
export function isNamespaceNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return (code === NOT_FOUND || /code: NotFound/.test(message)) && /namespace/i.test(message);
}

/** The error for a namespace the server does not have: what to create, with which command. */
export function namespaceNotFoundError(namespace: string, address?: string): ConfigurationError {
  const where = address ? ` at ${address}` : '';
  const flag = address ? ` --address ${address}` : '';
  return new ConfigurationError(
    `Temporal namespace "${namespace}" does not exist on the server${where}. Create it with ` +
      `\`temporal operator namespace create --namespace ${namespace}${flag}\` (on Temporal Cloud, in ` +
      `its console), or use an existing namespace (the namespace option, TEMPORAL_NAMESPACE or --namespace).`,
  );
}
