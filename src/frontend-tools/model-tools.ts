import type { ToolSchema } from '../common/messages.ts';
import { ToolkitError } from '../errors.ts';
import type { FrontendTool } from './types.ts';

/**
 * The tools a model step offers: the agent's, then the turn's frontend tools.
 * @throws ToolkitError (`FRONTEND_TOOL_CONFLICT`, not retryable) when a frontend tool has the name of
 * one of the agent's tools: which one would run is not the client's to decide.
 */
export function withFrontendTools(tools: ToolSchema[], frontend: readonly FrontendTool[] = []): ToolSchema[] {
  if (frontend.length === 0) return tools;
  const taken = new Set(tools.map((tool) => tool.function.name));
  const clash = frontend.filter((tool) => taken.has(tool.name)).map((tool) => tool.name);
  if (clash.length > 0) {
    throw new ToolkitError(
      'FRONTEND_TOOL_CONFLICT',
      `The turn offers frontend tools named like the agent's own (${clash.join(', ')}): rename them in the client.`,
    );
  }
  return [
    ...tools,
    ...frontend.map((tool): ToolSchema => ({
      type: 'function',
      function: {
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters ?? { type: 'object', properties: {} },
      },
    })),
  ];
}
