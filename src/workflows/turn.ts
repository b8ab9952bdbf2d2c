import { workflowInfo } from '@temporalio/workflow';
import type { AgentResult, AgentRunInput } from '../common/run.ts';
import type { EventLog } from './event-log.ts';
import { quickActivities } from './quick-activities.ts';
import { RunLoop } from './run-loop.ts';

/**
 * One prompt answered: resolve the turn (model, skills, tools, limits, opening messages), run the
 * loop, emit `run_completed`. A run is one turn; a chat session runs one per `send`, continuing its
 * stored conversation from `session.startSeq`.
 */
export async function runTurn(
  input: AgentRunInput,
  conversationId: string,
  events: EventLog,
  session?: { startSeq: number; turnId: string },
): Promise<AgentResult & { messageCount: number }> {
  const { workflowId, runId } = workflowInfo();
  const plan = await quickActivities.resolveRun({
    agent: input.agent,
    conversationId,
    prompt: input.prompt,
    maxIterations: input.maxIterations,
    skills: input.skills,
    model: input.model,
    ...(session ? { startSeq: session.startSeq } : {}),
  });
  const loop = new RunLoop(input, plan, conversationId, events, session?.turnId);
  const { output, stopReason, iterations } = await loop.run();
  events.emit('run_completed', 'Run completed', {
    output,
    stop_reason: stopReason,
    iterations,
    used_skills: plan.used_skills,
    used_skill_tools: plan.used_skill_tools,
    ...(session ? { turn_id: session.turnId } : {}),
  });
  return {
    output,
    messageCount: loop.seq,
    metadata: {
      used_skills: plan.used_skills,
      used_skill_tools: plan.used_skill_tools,
      unavailable_skill_tools: plan.unavailable_skill_tools,
      iterations,
      stop_reason: stopReason,
      workflow_id: workflowId,
      run_id: runId,
      model: plan.model,
      usage: loop.usage,
      step_usage: loop.stepUsage,
    },
  };
}
