import type { AgentDefinition } from '../agent/definition.ts';
import { closestName } from '../common/closest-name.ts';
import type { ToolkitAgentConfig } from './config-types.ts';
import { CliError } from './output.ts';

// Every key each part of the config may have. `satisfies` keeps each list exactly the type's keys.
const CONFIG_KEYS = {
  agents: true,
  defaultAgent: true,
  credentialStore: true,
  memoryStore: true,
  usageStore: true,
  quotas: true,
  pricing: true,
  temporal: true,
  encryption: true,
  oauth: true,
  triggers: true,
} satisfies Record<keyof ToolkitAgentConfig, true>;

const TEMPORAL_KEYS = {
  profile: true,
  address: true,
  namespace: true,
  apiKey: true,
  tls: true,
  configFile: true,
  taskQueue: true,
} satisfies Record<keyof NonNullable<ToolkitAgentConfig['temporal']>, true>;

const AGENT_KEYS = {
  llm: true,
  models: true,
  tools: true,
  fastTools: true,
  credentialStore: true,
  memoryStore: true,
  quotas: true,
  systemPrompt: true,
  maxIterations: true,
  maxToolOutputChars: true,
  timeouts: true,
  toolSearch: true,
  builtinTools: true,
  mcpServers: true,
  timeoutMs: true,
  limits: true,
  approval: true,
  liveText: true,
  context: true,
  output: true,
  outputRepairs: true,
  subAgents: true,
  handoffs: true,
  maxSubAgentDepth: true,
  authorization: true,
  rateLimits: true,
  guardrails: true,
  memory: true,
  caching: true,
  skillRegistry: true,
  skillSource: true,
  skills: true,
  defaultSkillIds: true,
  autoUseSkills: true,
  skillMatchLimit: true,
  skillActivation: true,
  skillListingChars: true,
  autoProjectSkills: true,
  projectRoot: true,
} satisfies Record<keyof AgentDefinition, true>;

/**
 * Refuses a config with a key no part of it has (`sytemPrompt`, `temporal.adress`), naming where it
 * is and the key meant: a typo must not be ignored (a typo'd address would quietly fall back to a
 * temporary server).
 */
export function checkConfigKeys(config: ToolkitAgentConfig, path: string): void {
  checkKeys(config, CONFIG_KEYS, '', path);
  if (isObject(config.temporal)) checkKeys(config.temporal, TEMPORAL_KEYS, 'temporal.', path);
  for (const [name, agent] of Object.entries(config.agents ?? {})) {
    if (isObject(agent)) checkKeys(agent, AGENT_KEYS, `agents.${name}.`, path);
  }
}

function checkKeys(value: object, known: Record<string, true>, where: string, path: string): void {
  for (const key of Object.keys(value)) {
    if (key in known) continue;
    const hint = closestName(key, Object.keys(known));
    throw new CliError(
      `${path}: unknown key ${where}${key}${hint ? `; did you mean ${where}${hint}?` : '.'} ` +
        `Known keys${where ? ` of ${where.slice(0, -1)}` : ''}: ${Object.keys(known).join(', ')}.`,
    );
  }
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
