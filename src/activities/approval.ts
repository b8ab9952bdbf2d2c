import type { ApprovalSettings, ResolvedApproval } from '../common/control.ts';
import { DEFAULT_APPROVAL_TIMEOUT_MS } from '../common/control.ts';
import type { ToolCall } from '../common/messages.ts';
import { ConfigurationError } from '../errors.ts';
import type { BaseConnectorTool } from '../tools/connector-base.ts';
import type { RegisteredAgent } from './registered-agent.ts';

/**
 * Which of an agent's tools wait for approval: the agent's `approval.tools` when it names them,
 * else each tool's own `needsApproval` (`true`: always; a function: asked per call).
 */
export function resolveApproval(
  agent: string,
  settings: ApprovalSettings | undefined,
  tools: ReadonlyMap<string, BaseConnectorTool>,
  builtins: ReadonlyMap<string, BaseConnectorTool>,
  /** Further tool names `approval.tools` may list: the agent's sub-agent tools (`agent_<name>`). */
  delegationTools: readonly string[] = [],
): ResolvedApproval | undefined {
  const timeoutMs = settings?.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
  if (!(typeof timeoutMs === 'number' && timeoutMs > 0)) {
    throw new ConfigurationError(`Agent "${agent}": approval.timeoutMs must be a number above 0.`);
  }
  const all = new Map([...tools, ...builtins]);
  if (settings?.tools) {
    const unknown = settings.tools.filter((name) => !all.has(name) && !delegationTools.includes(name));
    if (unknown.length) {
      throw new ConfigurationError(
        `Agent "${agent}": approval.tools names tools it does not have: ${unknown.join(', ')}.`,
      );
    }
    return settings.tools.length ? { tools: [...settings.tools], dynamic: [], timeoutMs } : undefined;
  }
  const always: string[] = [];
  const dynamic: string[] = [];
  for (const [name, tool] of all) {
    if (tool.needsApproval === true) always.push(name);
    else if (typeof tool.needsApproval === 'function') dynamic.push(name);
  }
  return always.length || dynamic.length ? { tools: always, dynamic, timeoutMs } : undefined;
}

/** Asks a tool's `needsApproval` function about one call (worker code: it may read anything). */
export async function needsApproval(
  agent: RegisteredAgent,
  input: { call: ToolCall; tenant?: string; workflowId: string; runId: string },
): Promise<boolean> {
  const { call } = input;
  const tool = agent.tools.get(call.name) ?? agent.builtinTools.get(call.name);
  const decide = tool?.needsApproval;
  if (typeof decide !== 'function') return Boolean(decide);
  return Boolean(
    await decide(call.args ?? {}, {
      agent: agent.name,
      tenant: input.tenant,
      workflowId: input.workflowId,
      runId: input.runId,
      callId: call.id,
    }),
  );
}
