import type { Context } from '@temporalio/activity';
import type { Message, ResolvedRun, ResolveRunInput } from '../common/index.ts';
import { toolResultMessage } from '../common/messages.ts';
import type { RegisteredAuthorization } from '../authorization/options.ts';
import type { ResolvedAuthorization } from '../common/authorization.ts';
import { mcpToolsForRun } from '../mcp/run-tools.ts';
import { DEFAULT_MAX_ITERATIONS, SKILL_MAX_ITERATIONS } from './agent-defaults.ts';
import { checkCaching } from '../caching/check.ts';
import type { RegisteredAgent } from './registered-agent.ts';
import { lookupModel } from './registry.ts';
import { resolveSkills } from './resolve-skills.ts';
import { writeAttemptOf } from './write-attempt.ts';
import { admitRun, recordEmbedding, spendWriterOf } from '../usage/recorder.ts';
import { guardrailPlan, type RegisteredGuardrails } from '../guardrails/registered.ts';
import { openTurnMemory } from '../agent-memory/turn-memory.ts';

/** A session's system message when the agent has no system prompt and no skill is active. */
export const SESSION_SYSTEM_PROMPT = 'You are a helpful assistant.';

/**
 * The start of a run: which model, which skills (and the tools they attach), how many iterations
 * (8 when skills are active or listed for the model to load and no limit was set), and the
 * opening messages: the system prompt with the skills' instruction blocks and the listing of skills
 * the model may load, then the user's prompt. Recorded in history, so
 * replay sees the same decisions.
 */
export async function resolveRun(
  agent: RegisteredAgent,
  input: ResolveRunInput,
  context: Context,
  guarded?: { owner: string; guardrails: RegisteredGuardrails },
): Promise<ResolvedRun> {
  const attempt = writeAttemptOf(context);
  const model = input.model ?? agent.defaultModel;
  lookupModel(agent, model); // an unknown name fails the run here, clearly
  // A run or chat turn from outside: refused here, before anything runs, when a start quota is reached.
  if (input.admit && agent.usage) {
    await admitRun(agent.usage, { ...input, model, startSeq: input.startSeq ?? 0 }, context);
  }
  const skills = await resolveSkills(agent, input.prompt, input.skills, { listing: !input.noTools });
  const mcp = input.noTools ? undefined : await mcpToolsForRun(agent, skills.skills, input.tenant);
  const skillTools = [...skills.tools, ...(mcp?.skillTools ?? [])];
  const delegating = input.deepPhase ? subAgentListing(agent, input.deepPhase) : undefined;
  const system = [agent.systemPrompt, ...skills.prompts, skills.listing, delegating]
    .filter(Boolean)
    .join('\n\n');
  // A deep run's phases and a handoff take no part in memory: the turn's own prompt does.
  const embedding = { tokens: 0 };
  const memory =
    input.noTools || input.deepPhase || input.handoff
      ? undefined
      : await openTurnMemory(agent.memory, { ...input, agent: agent.name }, context, embedding);
  const embedder = agent.memory?.memory.embedderId;
  if (agent.usage && embedder)
    await recordEmbedding(
      agent.usage,
      { ...input, agent: agent.name, embedder, use: 'recall', at: input.startSeq ?? 0, ...embedding },
      spendWriterOf(context),
    );
  const user: Message = {
    role: 'user',
    content: input.prompt,
    ...(memory?.text ? { recalled: memory.text } : {}),
  };
  let messageCount: number;
  if (input.handoff) {
    messageCount = await handOver(agent, input.conversationId, input.handoff, system, attempt);
  } else if (input.startSeq === undefined) {
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
  const guardrails = guardrailPlan(
    guarded?.owner ?? agent.name,
    guarded ? guarded.guardrails : agent.guardrails,
    input.guardrails,
  );
  return {
    ...(guardrails ? { guardrails } : {}),
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
    ...(agent.fastTools.length && !input.noTools
      ? { fastTools: agent.fastTools, carryFastCalls: true as const }
      : {}),
    ...(agent.approval && !input.noTools ? { approval: agent.approval } : {}),
    ...(agent.authorization && !input.noTools
      ? { authorization: resolvedAuthorization(agent.authorization) }
      : {}),
    ...(agent.textDeltaBatchMs ? { textDeltaBatchMs: agent.textDeltaBatchMs } : {}),
    ...(input.caching !== undefined
      ? { caching: checkCaching(`The run of agent "${agent.name}"`, input.caching) }
      : {}),
    ...(agent.output ? { output: agent.output } : {}),
    ...(delegation(agent, input.noTools) ?? {}),
    ...(agent.toolQueues && !input.noTools ? { toolQueues: agent.toolQueues } : {}),
    ...(agent.mcpQueues && !input.noTools ? { mcpQueues: agent.mcpQueues } : {}),
    ...(memory
      ? {
          memory: {
            resource: memory.resource,
            recalled: memory.recalled,
            ...(agent.memory?.observeEveryTurns ? { observeEveryTurns: agent.memory.observeEveryTurns } : {}),
          },
        }
      : {}),
  };
}

/**
 * A DeepAgent's sub-agents, for its plan (which steps to give to whom, which can run in parallel)
 * and its execute phase (delegate those steps, independent ones in the same step).
 */
function subAgentListing(agent: RegisteredAgent, phase: 'plan' | 'execute'): string | undefined {
  if (!agent.subAgents?.size) return undefined;
  const lines = [...agent.subAgents.keys()].map(
    (tool) => `- ${tool}: ${agent.schemas.get(tool)?.function.description ?? ''}`,
  );
  const how =
    phase === 'plan'
      ? 'Sub-agents can carry out steps of the plan, each with its own tools and context. Name the sub-agent ' +
        '(its tool) for each step it should do, and say which steps are independent, so they can run in parallel:'
      : 'Delegate the steps of the plan that name a sub-agent to it with its tool; call the tools of ' +
        'independent steps in the same step, so they run in parallel. Sub-agents:';
  return `${how}\n${lines.join('\n')}`;
}

/** The agent's sub-agent and handoff tools as the workflow needs them (none in a turn without tools). */
function delegation(
  agent: RegisteredAgent,
  noTools: boolean | undefined,
): Pick<ResolvedRun, 'delegation'> | undefined {
  if (noTools || (!agent.subAgents && !agent.handoffs)) return undefined;
  return {
    delegation: {
      ...(agent.subAgents ? { subAgents: Object.fromEntries(agent.subAgents) } : {}),
      ...(agent.handoffs ? { handoffs: Object.fromEntries(agent.handoffs) } : {}),
      ...(agent.maxSubAgentDepth !== undefined ? { maxSubAgentDepth: agent.maxSubAgentDepth } : {}),
    },
  };
}

/**
 * A conversation handed to `agent`: the transfer call is answered at its position, and the model
 * gets the agent's instructions — in the system message at position 0 when the conversation has
 * one, else in the transfer's result. No user message is added; the next step continues the
 * conversation. Answers the position of the next message.
 */
async function handOver(
  agent: RegisteredAgent,
  conversationId: string,
  handoff: NonNullable<ResolveRunInput['handoff']>,
  system: string,
  attempt: ReturnType<typeof writeAttemptOf>,
): Promise<number> {
  const [first] = await agent.memoryStore.read(conversationId, { before: 1 });
  const inSystem = first?.role === 'system';
  if (inSystem) {
    await agent.memoryStore.append(
      conversationId,
      0,
      [{ role: 'system', content: system || SESSION_SYSTEM_PROMPT }],
      attempt,
    );
  }
  const note = `Transferred from ${handoff.from} to ${agent.name}: you answer from now on.`;
  const content = !inSystem && system ? `${note}\n\nYour instructions:\n${system}` : note;
  await agent.memoryStore.append(
    conversationId,
    handoff.seq,
    [toolResultMessage(handoff.call, content)],
    attempt,
  );
  return handoff.seq + 1;
}

/** What the workflow needs of the agent's authorization settings (not the helpers: they stay on the worker). */
function resolvedAuthorization({ helpers: _, ...settings }: RegisteredAuthorization): ResolvedAuthorization {
  return settings;
}
