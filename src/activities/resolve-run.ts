import type { Context } from '@temporalio/activity';
import type { Message, ResolvedRun, ResolveRunInput } from '../common/index.ts';
import { mcpToolsForRun } from '../mcp/run-tools.ts';
import { DEFAULT_MAX_ITERATIONS, SKILL_MAX_ITERATIONS, type RegisteredAgent } from './agent-definition.ts';
import { lookupModel } from './registry.ts';
import { resolveSkills } from './resolve-skills.ts';
import { writeAttemptOf } from './write-attempt.ts';

/** A session's system message when the agent has no system prompt and no skill is active. */
export const SESSION_SYSTEM_PROMPT = 'You are a helpful assistant.';

/**
 * The start of a run: which model, which skills (and the tools they attach), how many iterations
 * (8 when skills are active or listed for the model to load and no limit was set, spec 8), and the
 * opening messages: the system prompt with the skills' instruction blocks and the listing of skills
 * the model may load, then the user's prompt. Recorded in history, so
 * replay sees the same decisions.
 */
export async function resolveRun(
  agent: RegisteredAgent,
  input: ResolveRunInput,
  context: Context,
): Promise<ResolvedRun> {
  const attempt = writeAttemptOf(context);
  const model = input.model ?? agent.defaultModel;
  lookupModel(agent, model); // an unknown name fails the run here, clearly
  const skills = await resolveSkills(agent, input.prompt, input.skills, { listing: !input.noTools });
  const mcp = input.noTools ? undefined : await mcpToolsForRun(agent, skills.skills, input.tenant);
  const skillTools = [...skills.tools, ...(mcp?.skillTools ?? [])];
  const system = [agent.systemPrompt, ...skills.prompts, skills.listing].filter(Boolean).join('\n\n');
  const user: Message = { role: 'user', content: input.prompt };
  let messageCount: number;
  if (input.startSeq === undefined) {
    const messages: Message[] = system ? [{ role: 'system', content: system }, user] : [user];
    await agent.memoryStore.append(input.conversationId, 0, messages, attempt);
    messageCount = messages.length;
  } else {
    const start = Math.max(1, input.startSeq);
    await agent.memoryStore.append(
      input.conversationId,
      0,
      [{ role: 'system', content: system || SESSION_SYSTEM_PROMPT }],
      attempt,
    );
    await agent.memoryStore.append(input.conversationId, start, [user], attempt);
    messageCount = start + 1;
  }
  const explicit = input.maxIterations ?? agent.maxIterations;
  return {
    model,
    tools: input.noTools
      ? []
      : [...new Set([...agent.initialTools, ...skillTools, ...(mcp?.tools ?? []), ...skills.listingTools])],
    maxIterations:
      explicit ??
      (skills.skills.length > 0 || skills.listing ? SKILL_MAX_ITERATIONS : DEFAULT_MAX_ITERATIONS),
    messageCount,
    used_skills: skills.skills.map((skill) => skill.id),
    used_skill_tools: skillTools,
    unavailable_skill_tools: skills.unavailableTools,
    unavailable_skill_mcps: mcp?.unavailable ?? [],
    ...(mcp?.failed.length ? { unavailable_mcps: mcp.failed } : {}),
    timeouts: agent.timeouts,
    ...(agent.timeoutMs !== undefined ? { timeoutMs: agent.timeoutMs } : {}),
    ...(agent.limits ? { limits: agent.limits } : {}),
    ...(agent.approval && !input.noTools ? { approval: agent.approval } : {}),
    ...(agent.textDeltaBatchMs ? { textDeltaBatchMs: agent.textDeltaBatchMs } : {}),
    ...(agent.output ? { output: agent.output } : {}),
  };
}
