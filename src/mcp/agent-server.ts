import type { McpServer as McpServerV2 } from '@modelcontextprotocol/server';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AgentClient } from '../client/agent-client.ts';
import type { AgentEvent } from '../common/events.ts';
import { ConfigurationError } from '../errors.ts';
import { runAgentToolCall } from './agent-tool-call.ts';
import { askForAuthorization } from './authorization-elicitation.ts';
import { InputRequiredWaits } from './input-required.ts';
import type { McpServerSdk, McpServerV2Sdk } from './sdk.ts';
import type { JsonSchemaObject } from '../output/types.ts';

const SERVER_INFO = { name: 'toolkit-agent', version: '0.1.0' };

/** The MCP tool name of an agent: `run_<agent>`. */
export function runToolName(agent: string): string {
  const name = `run_${agent}`;
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name)) {
    throw new ConfigurationError(
      `Agent "${agent}" cannot be offered over MCP as "${name}": tool names are 1-64 letters, digits, _ or -. ` +
        'Rename the agent.',
    );
  }
  return name;
}

const input = {
  prompt: z.string().min(1).describe('What the agent should do'),
  session_id: z
    .string()
    .regex(/^[\w.:-]{1,200}$/)
    .optional()
    .describe('Continue (or start) the chat session with this id; without it the run stands alone'),
};

/** The tool's output schema: `output` is the answer's text, or the agent's structured `output`. */
function outputShape(schema: JsonSchemaObject | undefined) {
  return {
    output: schema
      ? z.fromJSONSchema(schema).describe("The agent's answer, matching its output schema")
      : z.string().describe("The agent's answer"),
    workflow_id: z.string().describe('The durable run (a Temporal workflow): follow or fetch it by this id'),
    session_id: z.string().optional(),
  };
}

function describeTool(agent: string) {
  return {
    title: `Run the ${agent} agent`,
    description:
      `Runs the "${agent}" agent on a prompt as a durable run and returns its answer. ` +
      'Progress notifications report each step; the first one names the run, which keeps going if you disconnect.',
  };
}

/**
 * An MCP server (SDK `McpServer`) whose tools run our agents: `run_<agent>` takes `prompt` and an
 * optional `session_id`, starts a durable run (or the session's next turn) through `agents`, sends
 * each run event as a progress notification (the first names the workflow, so a client that
 * disconnects can find the run again) and answers with the final output. An agent with an `output`
 * schema (`outputs`, as JSON Schema) declares it in the tool's `outputSchema` and answers with the
 * object in `structuredContent.output` (its JSON as the text content).
 */
export function createAgentMcpServer(
  sdk: McpServerSdk,
  agents: AgentClient,
  names: readonly string[],
  outputs: Readonly<Record<string, JsonSchemaObject | undefined>> = {},
): McpServer {
  const server = new sdk.McpServer(SERVER_INFO);
  for (const agent of names) {
    server.registerTool(
      runToolName(agent),
      { ...describeTool(agent), inputSchema: input, outputSchema: outputShape(outputs[agent]) },
      (args, extra): Promise<CallToolResult> => {
        const token = extra._meta?.progressToken;
        let step = 0;
        return runAgentToolCall<never>(agents, agent, args, outputs[agent], {
          signal: extra.signal,
          progress: (message) => {
            if (token === undefined || extra.signal.aborted) return;
            extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, progress: step++, message },
              })
              .catch(() => undefined); // a client that left misses progress; the run goes on
          },
          ask: (workflowId, event) => askForAuthorization(server, extra.requestId, workflowId, event),
        });
      },
    );
  }
  return server;
}

/**
 * The same tools on a 2.x SDK `McpServer`, for one 2026-07-28 request (a fresh server per request:
 * the protocol is stateless). Progress goes on the request's own stream; a run that waits for
 * authorization or for an approval answers `input_required` (see {@link InputRequiredWaits}), and
 * the retried call goes on with the same run.
 */
export function createAgentMcpServerV2(
  sdk: McpServerV2Sdk,
  agents: AgentClient,
  names: readonly string[],
  outputs: Readonly<Record<string, JsonSchemaObject | undefined>> = {},
): McpServerV2 {
  const server = new sdk.McpServer(SERVER_INFO);
  for (const agent of names) {
    server.registerTool(
      runToolName(agent),
      {
        ...describeTool(agent),
        inputSchema: z.object(input),
        outputSchema: z.object(outputShape(outputs[agent])),
      },
      async (args, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        let step = 0;
        const waits = new InputRequiredWaits(sdk, ctx, agents, Boolean(args.session_id));
        const { resume, answer } = await waits.resumed();
        if (answer) return answer;
        const io = {
          signal: ctx.mcpReq.signal,
          progress: (message: string) => {
            if (token === undefined || ctx.mcpReq.signal.aborted) return;
            ctx.mcpReq
              .notify({
                method: 'notifications/progress',
                params: { progressToken: token, progress: step++, message },
              })
              .catch(() => undefined);
          },
          ask: (workflowId: string, event: AgentEvent) => waits.ask(workflowId, event),
        };
        return runAgentToolCall(agents, agent, args, outputs[agent], io, resume);
      },
    );
  }
  return server;
}
