import { Context } from '@temporalio/activity';
import type {
  AppendMessagesInput,
  CallModelInput,
  InvokeToolInput,
  Message,
  ModelStep,
  ResolvedRun,
  ResolveRunInput,
  ToolOutcome,
} from '../common/index.ts';
import { callModel } from './call-model.ts';
import { toApplicationFailure } from './failures.ts';
import { invokeTool } from './invoke-tool.ts';
import { DEFAULT_MAX_ITERATIONS, lookupAgent, SKILL_MAX_ITERATIONS, type AgentRegistry } from './registry.ts';
import { resolveSkills } from './resolve-skills.ts';

/**
 * The activities of the agent workflows, closed over the worker's agents (their model adapters,
 * tools and stores). Workflows type their proxies against this factory's return type.
 */
export function createActivities(registry: AgentRegistry) {
  return {
    /** Decides the run's tools and limits and stores its opening messages. */
    resolveRun: (input: ResolveRunInput): Promise<ResolvedRun> =>
      atBoundary(async () => {
        const agent = lookupAgent(registry, input.agent);
        const skills = await resolveSkills(agent, input.prompt, input.skills);
        const system = [agent.systemPrompt, ...skills.prompts].filter(Boolean).join('\n\n');
        const messages: Message[] = [];
        if (system) messages.push({ role: 'system', content: system });
        messages.push({ role: 'user', content: input.prompt });
        await agent.memoryStore.append(input.conversationId, 0, messages);
        const explicit = input.maxIterations ?? agent.maxIterations;
        return {
          tools: [
            ...agent.initialTools,
            ...skills.tools.filter((name) => !agent.initialTools.includes(name)),
          ],
          maxIterations:
            explicit ?? (skills.skills.length > 0 ? SKILL_MAX_ITERATIONS : DEFAULT_MAX_ITERATIONS),
          messageCount: messages.length,
          used_skills: skills.skills.map((skill) => skill.id),
          used_skill_tools: skills.tools,
          unavailable_skill_tools: skills.unavailableTools,
          timeouts: agent.timeouts,
        };
      }),

    callModel: (input: CallModelInput): Promise<ModelStep> =>
      atBoundary(() => callModel(lookupAgent(registry, input.agent), input, Context.current())),

    invokeTool: (input: InvokeToolInput): Promise<ToolOutcome> =>
      atBoundary(() => invokeTool(lookupAgent(registry, input.agent), input, Context.current())),

    /** Stores messages the workflow decided on (a failed tool's error, refused calls). */
    appendMessages: (input: AppendMessagesInput): Promise<void> =>
      atBoundary(() =>
        lookupAgent(registry, input.agent).memoryStore.append(
          input.conversationId,
          input.seq,
          input.messages,
        ),
      ),
  };
}

export type AgentActivities = ReturnType<typeof createActivities>;

async function atBoundary<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toApplicationFailure(error);
  }
}
