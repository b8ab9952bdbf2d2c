import { ConfigurationError } from '../errors.ts';
import type { BaseConnectorTool } from '../tools/connector-base.ts';

/**
 * The agent's tools whose calls run as local activities: those that declare `fast: true` (the
 * built-ins that only touch the project folder or the plan do) and those its `fastTools` names.
 * A name that is not one of the agent's own or built-in tools fails at start-up: MCP tools and
 * delegation tools cannot be fast (their work goes over the network or to a child run).
 */
export function resolveFastTools(
  agent: string,
  named: readonly string[] | undefined,
  tools: ReadonlyMap<string, BaseConnectorTool>,
  builtinTools: ReadonlyMap<string, BaseConnectorTool>,
): string[] {
  const names: unknown = named ?? [];
  if (!Array.isArray(names)) {
    throw new ConfigurationError(`Agent "${agent}": fastTools must be an array of tool names.`);
  }
  for (const name of names as unknown[]) {
    if (typeof name !== 'string' || !(tools.has(name) || builtinTools.has(name))) {
      const known = [...tools.keys(), ...builtinTools.keys()].join(', ') || 'none';
      throw new ConfigurationError(
        `Agent "${agent}": fastTools names ${JSON.stringify(name)}, which is not one of its tools ` +
          `(its own and built-in tools: ${known}). MCP and sub-agent tools cannot be fast; remove the name.`,
      );
    }
  }
  const fast = [...tools.values(), ...builtinTools.values()]
    .filter((tool) => tool.fast)
    .map((tool) => tool.name);
  return [...new Set([...fast, ...(names as string[])])];
}
