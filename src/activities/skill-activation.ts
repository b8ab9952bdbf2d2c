import type { ToolSchema } from '../common/index.ts';
import { ConfigurationError } from '../errors.ts';
import { skillActivationTools } from '../skills/skill-tools.ts';
import type { BaseConnectorTool } from '../tools/connector-base.ts';
import type { AgentSkillSettings } from './registered-agent.ts';

/**
 * Registers `load_skill` and `read_skill_file` for an agent whose skills the model may choose
 * (`skillActivation` other than `'triggers'`). They are callable tools of the agent, but given to the
 * model only in runs whose system prompt lists skills to load.
 */
export function addSkillActivationTools(
  agent: string,
  settings: AgentSkillSettings,
  tools: Map<string, BaseConnectorTool>,
  builtinTools: ReadonlyMap<string, BaseConnectorTool>,
  initialTools: readonly string[],
  schemas: Map<string, ToolSchema>,
): void {
  if (settings.activation === 'triggers') return;
  const added = skillActivationTools({
    registry: settings.registry,
    projectRoot: settings.projectRoot,
    hasTool: (name) => tools.has(name) || builtinTools.has(name),
    isAlwaysCallable: (name) => initialTools.includes(name),
  });
  for (const tool of added) {
    if (tools.has(tool.name) || builtinTools.has(tool.name)) {
      throw new ConfigurationError(
        `Agent "${agent}" has its own tool named "${tool.name}", which skill activation by the model needs; ` +
          "rename it or set skillActivation: 'triggers'.",
      );
    }
    tools.set(tool.name, tool);
    schemas.set(tool.name, tool.schema());
  }
}
