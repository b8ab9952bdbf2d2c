import type { AgentEvent } from '../common/events.ts';
import type { TrajectoryCall } from './types.ts';

/**
 * The tool calls of a run in the order they were made, from its `tool_called` events: those of its
 * sub-agent runs too when the events come from `events()` (tagged with the child's `agent` and `depth`).
 */
export function trajectoryOf(events: readonly AgentEvent[]): TrajectoryCall[] {
  return events
    .filter((event) => event.type === 'tool_called')
    .map((event) => {
      const { tool, args, agent, depth } = event.payload;
      return {
        tool: String(tool),
        args: (args as Record<string, unknown> | undefined) ?? {},
        ...(typeof agent === 'string' ? { agent } : {}),
        depth: typeof depth === 'number' ? depth : 0,
      };
    });
}
