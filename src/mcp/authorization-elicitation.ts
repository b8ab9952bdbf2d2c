import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AgentEvent } from '../common/events.ts';

/**
 * Puts a run's `authorization_required` before the MCP client's user: as a URL-mode elicitation
 * (the client opens the authorization URL; the run resumes once granted, and the elicitation is
 * completed by `authorization_granted`) when the client supports it; otherwise answers the tool
 * call with an error that names the URL (the run keeps waiting and resumes once authorized).
 * Undefined: the tool call goes on.
 */
export function askForAuthorization(
  server: McpServer,
  relatedRequestId: string | number,
  workflowId: string,
  event: AgentEvent,
): CallToolResult | undefined {
  const { payload } = event;
  const id = elicitationId(workflowId, event);
  if (event.type === 'authorization_granted') {
    if (urlElicitation(server))
      void server.server
        .createElicitationCompletionNotifier(id)()
        .catch(() => undefined);
    return undefined;
  }
  if (event.type !== 'authorization_required') return undefined;
  const key = String(payload.credential_key);
  const url = String(payload.url);
  const message = `The agent needs access to "${key}" to go on: open the link and authorize it.`;
  if (urlElicitation(server)) {
    // Not awaited: the user's answer only says whether they went; the grant itself wakes the run.
    void server.server
      .elicitInput({ mode: 'url', message, url, elicitationId: id }, { relatedRequestId })
      .catch(() => undefined);
    return undefined;
  }
  return authorizationWaitResult(workflowId, event);
}

/**
 * The tool call's answer to a run that waits for authorization, for a client that cannot be asked
 * by elicitation: an error naming the URL (the run keeps waiting and resumes once authorized).
 * Undefined for any other event.
 */
export function authorizationWaitResult(workflowId: string, event: AgentEvent): CallToolResult | undefined {
  if (event.type !== 'authorization_required') return undefined;
  const { payload } = event;
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text:
          `Run ${workflowId} waits for authorization of "${String(payload.credential_key)}": open ${String(payload.url)} to authorize it. ` +
          `The run resumes by itself once it is granted (until ${String(payload.expires_at)}).`,
      },
    ],
  };
}

function urlElicitation(server: McpServer): boolean {
  return Boolean(server.server.getClientCapabilities()?.elicitation?.url);
}

function elicitationId(workflowId: string, event: AgentEvent): string {
  return `${workflowId}:${String(event.payload.call_id)}:${String(event.payload.credential_key)}`;
}
