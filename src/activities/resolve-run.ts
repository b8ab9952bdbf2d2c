import type { Message, ResolvedRun, ResolveRunInput } from '../common/index.ts';
import {
  DEFAULT_MAX_ITERATIONS,
  lookupModel,
  SKILL_MAX_ITERATIONS,
  type RegisteredAgent,
} from './registry.ts';
import { resolveSkills } from './resolve-skills.ts';

/**
 * The start of a run: which model, which skills (and the tools they attach), how many iterations
 * (8 when skills are active and no limit was set, spec 8), and the opening messages: the system
 * prompt with the skills' instruction blocks, then the user's prompt. Recorded in history, so
 * replay sees the same decisions.
 */
export async function resolveRun(agent: RegisteredAgent, input: ResolveRunInput): Promise<ResolvedRun> {
  const model = input.model ?? agent.defaultModel;
  lookupModel(agent, model); // an unknown name fails the run here, clearly
  const skills = await resolveSkills(agent, input.prompt, input.skills);
  const system = [agent.systemPrompt, ...skills.prompts].filter(Boolean).join('\n\n');
  const messages: Message[] = [];
  if (system) messages.push({ role: 'system', content: system });
  messages.push({ role: 'user', content: input.prompt });
  await agent.memoryStore.append(input.conversationId, 0, messages);
  const explicit = input.maxIterations ?? agent.maxIterations;
  return {
    model,
    tools: [...agent.initialTools, ...skills.tools.filter((name) => !agent.initialTools.includes(name))],
    maxIterations: explicit ?? (skills.skills.length > 0 ? SKILL_MAX_ITERATIONS : DEFAULT_MAX_ITERATIONS),
    messageCount: messages.length,
    used_skills: skills.skills.map((skill) => skill.id),
    used_skill_tools: skills.tools,
    unavailable_skill_tools: skills.unavailableTools,
    timeouts: agent.timeouts,
  };
}
