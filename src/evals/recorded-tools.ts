import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../tools/connector-base.ts';
import type { RecordedCall, RecordedCase } from './record.ts';
import { canonical } from './scorers.ts';

/**
 * The agent's tools for a replay: a call the record has (the same tool with the same arguments,
 * each recorded call once, in order) is answered with the recorded result instead of running the
 * tool; any other call runs the tool. Calls that failed or whose recorded result was cut short
 * (longer than the event stream shows) run the tool too. Without `agent`, the recorded calls are
 * the run's own; with `agent`, those its sub-agent of that name made (give these tools to the
 * sub-agent's definition). Give them to the agent with {@link recordedModel} to replay a case
 * without a provider and without side effects.
 */
export function recordedTools(
  evalCase: RecordedCase,
  tools: BaseConnectorTool[],
  opts: { agent?: string } = {},
): BaseConnectorTool[] {
  const served = new Map<string, RecordedCall[]>();
  for (const call of evalCase.recorded.toolCalls) {
    if (
      call.agent !== opts.agent ||
      call.error !== undefined ||
      call.truncated ||
      call.output === undefined
    ) {
      continue;
    }
    const key = `${call.tool}:${canonical(call.args)}`;
    served.set(key, [...(served.get(key) ?? []), call]);
  }
  return tools.map((tool) => new RecordedTool(tool, served));
}

/** A tool that answers recorded calls from the record and runs the others. */
class RecordedTool extends BaseConnectorTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: BaseConnectorTool['parameters'];
  readonly #tool: BaseConnectorTool;
  readonly #served: Map<string, RecordedCall[]>;

  constructor(tool: BaseConnectorTool, served: Map<string, RecordedCall[]>) {
    super({
      credentialKey: tool.credentialKey,
      fast: tool.fast,
      ...(tool.needsApproval === undefined ? {} : { needsApproval: tool.needsApproval }),
    });
    this.name = tool.name;
    this.description = tool.description;
    this.parameters = tool.parameters;
    this.#tool = tool;
    this.#served = served;
  }

  async run(context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    const recorded = this.#served.get(`${this.name}:${canonical(args)}`)?.shift();
    if (recorded?.output !== undefined) return { text: recorded.output, metadata: { recorded: true } };
    return this.#tool.run(context, args);
  }
}
