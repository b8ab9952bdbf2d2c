/** The chat agent: its model, tools and instructions. */
import { z } from 'zod';
import { Agent, BaseConnectorTool, type ToolOutput } from 'toolkit-agent';
import { chooseModel } from './model.ts';

/** An example tool: add your connectors (`toolkit-agent/tools/*`), MCP servers or your own. */
class ClockTool extends BaseConnectorTool {
  readonly name = 'clock';
  readonly description = 'The current date and time (UTC)';
  readonly parameters = z.object({});
  async run(): Promise<ToolOutput> {
    return { text: new Date().toISOString(), metadata: {} };
  }
}

export const agent = new Agent({
  llm: await chooseModel(),
  tools: [new ClockTool()],
  systemPrompt: 'You are a friendly assistant in a web chat. Answer briefly.',
  // On your cluster instead of a dev server started here: temporal: { address, taskQueue: 'chat' }
  ...(process.env.TEMPORAL_ADDRESS
    ? { temporal: { address: process.env.TEMPORAL_ADDRESS, taskQueue: 'chat' } }
    : {}),
});
