import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { AgentClient } from '../client/agent-client.ts';
import type { AgentEvent } from '../common/events.ts';
import { ConfigurationError } from '../errors.ts';
import { askForAuthorization } from './authorization-elicitation.ts';
import type { McpServerSdk } from './sdk.ts';
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
      {
        title: `Run the ${agent} agent`,
        description:
          `Runs the "${agent}" agent on a prompt as a durable run and returns its answer. ` +
          'Progress notifications report each step; the first one names the run, which keeps going if you disconnect.',
        inputSchema: input,
        outputSchema: outputShape(outputs[agent]),
      },
      async ({ prompt, session_id }, extra): Promise<CallToolResult> => {
        const token = extra._meta?.progressToken;
        let step = 0;
        const progress = (message: string) => {
          if (token === undefined || extra.signal.aborted) return;
          extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: step++, message },
            })
            .catch(() => undefined); // a client that left misses progress; the run goes on
        };
        try {
          let workflowId: string;
          let events: AsyncGenerator<AgentEvent>;
          let result: (() => Promise<{ output: unknown }>) | undefined;
          if (session_id) {
            const session = agents.chatSession(agent, { sessionId: session_id });
            workflowId = session.workflowId;
            events = session.stream(prompt);
          } else {
            const handle = await agents.startRun(agent, prompt);
            workflowId = handle.workflowId;
            events = handle.events();
            result = () => handle.result();
          }
          progress(`Run started: workflow ${workflowId}`);
          let answer: unknown;
          let invalid: string | undefined;
          for await (const event of untilAborted(events, extra.signal)) {
            progress(`${event.type}: ${event.message}`);
            const asked = askForAuthorization(server, extra.requestId, workflowId, event);
            if (asked) return asked;
            if (event.type === 'run_completed') {
              answer = event.payload.output;
              if (event.payload.stop_reason === 'invalid_output') invalid = asReason(event.payload.reason);
            }
          }
          if (extra.signal.aborted) {
            return { content: [{ type: 'text', text: `The client left; run ${workflowId} goes on.` }] };
          }
          if (invalid !== undefined) throw new Error(`Run ${workflowId}: ${invalid}`);
          answer = result ? (await result()).output : (answer ?? (outputs[agent] ? undefined : ''));
          const text = typeof answer === 'string' ? answer : JSON.stringify(answer ?? null);
          return {
            content: [{ type: 'text', text }],
            structuredContent: {
              output: answer,
              workflow_id: workflowId,
              ...(session_id ? { session_id } : {}),
            },
          };
        } catch (error) {
          return {
            isError: true,
            content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
          };
        }
      },
    );
  }
  return server;
}

/** The events until the signal aborts (the client disconnected or cancelled): then stops reading, the run itself goes on. */
async function* untilAborted<T>(events: AsyncGenerator<T>, signal: AbortSignal): AsyncGenerator<T> {
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal.aborted) resolve('aborted');
    signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([events.next(), aborted]);
      if (next === 'aborted' || next.done) return;
      yield next.value;
    }
  } finally {
    void events.return(undefined).catch(() => undefined);
  }
}

function asReason(reason: unknown): string {
  return typeof reason === 'string' ? reason : 'the answer did not match the output schema';
}
