import { ConfigurationError } from '../errors.ts';
import type { FrontendTool } from './types.ts';

/** What a model provider accepts as a tool name. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Checks the frontend tools a client offers for a turn, before they travel with it.
 * @throws ConfigurationError naming the tool that is wrong: a name a model cannot call (1-64
 * letters, digits, `_` or `-`), a name offered twice, no description, or parameters that are not an
 * object schema.
 */
export function checkFrontendTools(tools: readonly FrontendTool[], what: string): FrontendTool[] {
  const names = new Set<string>();
  return tools.map((tool) => {
    if (typeof tool?.name !== 'string' || !TOOL_NAME.test(tool.name)) {
      throw new ConfigurationError(
        `${what}: the frontend tool name ${JSON.stringify(tool?.name)} cannot be called by a model: use 1-64 letters, digits, _ or -.`,
      );
    }
    if (names.has(tool.name)) {
      throw new ConfigurationError(`${what}: the frontend tool ${tool.name} is offered twice.`);
    }
    names.add(tool.name);
    if (typeof tool.description !== 'string') {
      throw new ConfigurationError(`${what}: the frontend tool ${tool.name} needs a description.`);
    }
    const { parameters } = tool;
    if (
      parameters !== undefined &&
      (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))
    ) {
      throw new ConfigurationError(
        `${what}: the parameters of the frontend tool ${tool.name} must be a JSON Schema object.`,
      );
    }
    return { name: tool.name, description: tool.description, ...(parameters ? { parameters } : {}) };
  });
}
