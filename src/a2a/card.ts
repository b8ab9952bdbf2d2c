import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import type { AgentDefinition } from '../agent/definition.ts';

/** The A2A protocol version `serveA2a` speaks (JSON-RPC binding). */
export const A2A_PROTOCOL_VERSION = '1.0';

/**
 * The agent card of one served agent: its name and description, a skill per skill and tool of the
 * agent, streaming on, and (with a bearer token) an HTTP bearer security scheme every call requires.
 */
export function agentCard(
  name: string,
  definition: AgentDefinition,
  opts: { url: string; description?: string; bearer: boolean; pushNotifications: boolean },
): AgentCard {
  const skills: AgentSkill[] = [
    ...(definition.skills ?? []).map((skill) =>
      typeof skill === 'string'
        ? cardSkill(skill, skill, `Skill ${skill}.`, ['skill'])
        : cardSkill(skill.id, skill.name, skill.description, ['skill', ...skill.tags]),
    ),
    ...(definition.tools ?? []).map((tool) =>
      cardSkill(`tool:${tool.name}`, tool.name, tool.description, ['tool']),
    ),
  ];
  if (!skills.length) skills.push(cardSkill(name, name, opts.description ?? `Agent "${name}".`, []));
  return {
    name,
    description: opts.description ?? firstLine(definition.systemPrompt) ?? `Agent "${name}".`,
    supportedInterfaces: [
      { url: opts.url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: {
      streaming: true,
      pushNotifications: opts.pushNotifications,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: opts.bearer
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { scheme: 'Bearer', bearerFormat: '', description: 'Authorization: Bearer <token>' },
            },
          },
        }
      : {},
    securityRequirements: opts.bearer ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: definition.output ? ['application/json', 'text/plain'] : ['text/plain'],
    skills,
    signatures: [],
  };
}

function cardSkill(id: string, name: string, description: string, tags: string[]): AgentSkill {
  return {
    id,
    name,
    description,
    tags,
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  };
}

function firstLine(text: string | undefined): string | undefined {
  const line = text?.trim().split('\n')[0]?.trim();
  return line || undefined;
}
